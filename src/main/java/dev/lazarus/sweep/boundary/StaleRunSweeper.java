package dev.lazarus.sweep.boundary;

import dev.lazarus.sweep.control.LastSweep;
import dev.lazarus.sweep.control.Sweeps;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The persistent timer that sweeps. Its rhythm is configuration: the seconds field of the schedule,
 * {@code lazarus.sweep.schedule-second} (default every 30 s). Persistent, so a sweep missed while the
 * server was down runs when it is back; on several nodes sharing the database each firing runs on one node
 * (WildFly's database timer store). A sweep that would overlap the previous one on this node is skipped;
 * sweeps on other nodes are safe (see {@link Sweeps}).
 *
 * <p>And a watchdog on every node: a node killed in the middle of a firing leaves the persistent timer marked as
 * running in WildFly's timer table, and no other node fires it again until that node comes back (if it ever
 * does). So each node checks every minute, with a timer of its own, when the last sweep finished
 * ({@link LastSweep}), and sweeps itself if none did for {@code lazarus.sweep.overdue-after} (2 minutes).
 */
@Singleton
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class StaleRunSweeper {

    private static final Logger LOG = Logger.getLogger(StaleRunSweeper.class.getName());

    @Inject
    Sweeps sweeps;

    @Inject
    LastSweep lastSweep;

    @Inject
    Clock clock;

    @Inject
    @ConfigProperty(name = "lazarus.sweep.overdue-after", defaultValue = "PT2M")
    Duration overdueAfter;

    private final AtomicBoolean sweeping = new AtomicBoolean();
    private final Instant deployedAt = Instant.now();

    @Schedule(hour = "*", minute = "*", second = "${lazarus.sweep.watchdog-second:15}", persistent = false,
            info = "Lazarus sweep watchdog: sweeps if the installation's sweeper stopped")
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public void watch() {
        try {
            sweepIfOverdue(clock.instant());
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "The sweep watchdog failed; it looks again in a minute", e);
        }
    }

    /** Sweeps if, at {@code now}, no sweep has finished for {@code lazarus.sweep.overdue-after}; whether it did. */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public boolean sweepIfOverdue(Instant now) {
        // before the first sweep of a new installation, the time this node started counts
        Instant last = lastSweep.finishedAt().orElse(deployedAt);
        if (last.isAfter(now.minus(overdueAfter))) {
            return false;
        }
        LOG.log(Level.WARNING, "No sweep has finished since {0} (lazarus.sweep.overdue-after {1}): the sweeper''s persistent timer"
                + " is not firing (its last node may have died in the middle of a firing); node {2} sweeps instead",
                new Object[] {last, overdueAfter, LastSweep.NODE});
        sweep();
        return true;
    }

    @Schedule(hour = "*", minute = "*", second = "${lazarus.sweep.schedule-second:*/30}", persistent = true,
            info = "Lazarus sweep: stale runs and dead-letter queue reconciliation")
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public void sweep() {
        if (!sweeping.compareAndSet(false, true)) {
            LOG.fine("Previous sweep still running; skipped");
            return;
        }
        try {
            sweeps.sweep();
        } catch (RuntimeException e) {
            // never let an exception cancel a persistent timer's next runs; say it loudly instead
            LOG.log(Level.SEVERE, "Sweep failed; the next one runs on schedule", e);
        } finally {
            sweeping.set(false);
        }
    }
}
