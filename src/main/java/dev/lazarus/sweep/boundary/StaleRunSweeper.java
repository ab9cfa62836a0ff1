package dev.lazarus.sweep.boundary;

import dev.lazarus.platform.control.TimerRuns;
import dev.lazarus.sweep.control.Sweeps;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The persistent timer that sweeps. Its rhythm is configuration: the seconds field of the schedule,
 * {@code lazarus.sweep.schedule-second} (default every 30 s). Persistent, so a sweep missed while the
 * server was down runs when it is back; on several nodes sharing the database each firing runs on one node
 * (WildFly's database timer store). One sweep at a time on a node, whoever asks (the timer, the watchdog, an operator
 * over {@code POST /api/staleness/sweep}): one that would overlap the sweep running on this node is skipped (the REST
 * call is told so); sweeps on other nodes are safe (see {@link Sweeps}).
 *
 * <p>And a watchdog on every node: a node killed in the middle of a firing leaves the persistent timer marked as
 * running in WildFly's timer table, and no other node fires it again until that node comes back (if it ever
 * does). So each node checks every minute, with a timer of its own, when the last sweep finished
 * ({@link TimerRuns}), and one of them sweeps if none did for {@code lazarus.sweep.overdue-after} (2 minutes).
 */
@Singleton
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class StaleRunSweeper {

    private static final Logger LOG = Logger.getLogger(StaleRunSweeper.class.getName());

    @Inject
    Sweeps sweeps;

    @Inject
    TimerRuns timerRuns;

    @Inject
    @ConfigProperty(name = "lazarus.sweep.overdue-after", defaultValue = "PT2M")
    Duration overdueAfter;

    private final AtomicBoolean sweeping = new AtomicBoolean();

    @Schedule(hour = "*", minute = "*", second = "${lazarus.sweep.watchdog-second:15}", persistent = false,
            info = "Lazarus sweep watchdog: sweeps if the installation's sweeper stopped")
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public void watch() {
        try {
            sweepIfOverdue();
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "The sweep watchdog failed; it looks again in a minute", e);
        }
    }

    /** Sweeps if no sweep finished for {@code lazarus.sweep.overdue-after} and this node's claim wins; whether it swept. */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public boolean sweepIfOverdue() {
        if (!timerRuns.claimOverdue(Sweeps.NAME, overdueAfter)) {
            return false;
        }
        LOG.log(Level.WARNING, "No sweep has finished for {0}: the sweeper''s persistent timer is not firing (its node may have"
                + " died in the middle of a firing, which leaves the timer marked as running); node {1} sweeps instead",
                new Object[] {overdueAfter, TimerRuns.NODE});
        return sweepUnlessRunning();
    }

    @Schedule(hour = "*", minute = "*", second = "${lazarus.sweep.schedule-second:*/30}", persistent = true,
            info = "Lazarus sweep: stale runs and dead-letter queue reconciliation")
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public void sweep() {
        sweepUnlessRunning();
    }

    /**
     * A sweep now, unless one is running on this node: what it did, or empty if it was skipped. A failure reaches the
     * caller (an operator asking over REST sees it); the timers' callers log it instead.
     */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public Optional<Sweeps.SweepReport> sweepNow() {
        if (!sweeping.compareAndSet(false, true)) {
            LOG.fine("A sweep is running on this node; skipped");
            return Optional.empty();
        }
        try {
            return Optional.of(sweeps.sweep());
        } finally {
            sweeping.set(false);
        }
    }

    /** A sweep, unless this node's previous one still runs; whether it swept. */
    private boolean sweepUnlessRunning() {
        try {
            return sweepNow().isPresent();
        } catch (RuntimeException e) {
            // never let an exception cancel a persistent timer's next runs; say it loudly instead
            LOG.log(Level.SEVERE, "Sweep failed; the next one runs on schedule", e);
            return true;
        }
    }
}
