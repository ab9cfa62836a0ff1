package dev.lazarus.sweep.boundary;

import dev.lazarus.platform.control.TimerRuns;
import dev.lazarus.platform.control.WatchedTimers;
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
import java.util.function.Supplier;
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
    WatchedTimers timers;

    @Inject
    @ConfigProperty(name = "lazarus.sweep.overdue-after", defaultValue = "PT2M")
    Duration overdueAfter;

    private final AtomicBoolean sweeping = new AtomicBoolean();

    @Schedule(hour = "*", minute = "*", second = "${lazarus.sweep.watchdog-second:15}", persistent = false,
            info = "Lazarus sweep watchdog: sweeps if the installation's sweeper stopped")
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public void watch() {
        sweepIfOverdue();
    }

    /** Sweeps if no sweep finished for {@code lazarus.sweep.overdue-after} and this node's claim wins; whether it swept. */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public boolean sweepIfOverdue() {
        return alone(() -> timers.watch(Sweeps.NAME, "the sweep", overdueAfter, this::sweepOnce)).orElse(false);
    }

    @Schedule(hour = "*", minute = "*", second = "${lazarus.sweep.schedule-second:*/30}", persistent = true,
            info = "Lazarus sweep: stale runs and dead-letter queue reconciliation")
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public void sweep() {
        alone(() -> timers.fired(Sweeps.NAME, "the sweep", this::sweepOnce));
    }

    /**
     * A sweep now, unless one is running on this node: what it did, or empty if it was skipped. A failure reaches the
     * caller (an operator asking over REST sees it); the timers' callers log it instead.
     */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public Optional<Sweeps.SweepReport> sweepNow() {
        return alone(sweeps::sweep);
    }

    private boolean sweepOnce() {
        sweeps.sweep();
        return true;
    }

    /** {@code work}, unless a sweep (with its record) is running on this node: one at a time, whoever asks. */
    private <T> Optional<T> alone(Supplier<T> work) {
        if (!sweeping.compareAndSet(false, true)) {
            LOG.fine("A sweep is running on this node; skipped");
            return Optional.empty();
        }
        try {
            return Optional.of(work.get());
        } finally {
            sweeping.set(false);
        }
    }
}
