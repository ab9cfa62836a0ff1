package dev.lazarus.sweep.boundary;

import dev.lazarus.sweep.control.StaleRuns;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.EJBException;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The persistent timer that sweeps stale runs. Its rhythm is configuration: the seconds field of the
 * schedule, {@code lazarus.sweep.schedule-second} (default every 30 s). Persistent, so a sweep missed while
 * the server was down runs when it is back. A sweep that overlaps the previous one on this node is skipped;
 * sweeps on other nodes are safe (see {@link StaleRuns}).
 */
@Singleton
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class StaleRunSweeper {

    private static final Logger LOG = Logger.getLogger(StaleRunSweeper.class.getName());

    @Inject
    StaleRuns staleRuns;

    @Inject
    Clock clock;

    private final AtomicBoolean sweeping = new AtomicBoolean();

    @Schedule(hour = "*", minute = "*", second = "${lazarus.sweep.schedule-second:*/30}", persistent = true,
            info = "Lazarus stale-run sweep")
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public void sweep() {
        if (!sweeping.compareAndSet(false, true)) {
            LOG.fine("Previous sweep still running; skipped");
            return;
        }
        try {
            Instant now = clock.instant();
            int deadLettered = 0;
            var candidates = staleRuns.stuckCandidates(now);
            for (UUID run : candidates) {
                try {
                    if (staleRuns.deadLetterIfStuck(run, now)) {
                        deadLettered++;
                    }
                } catch (EJBException e) {
                    // another node swept it, or its consumer finished, at the same moment: it is not stuck here
                    LOG.log(Level.FINE, "Run {0} changed while being swept: {1}", new Object[] {run, e.getMessage()});
                }
            }
            Duration took = Duration.between(now, clock.instant());
            if (deadLettered > 0 || !candidates.isEmpty()) {
                LOG.log(Level.INFO, "Sweep: {0} candidate(s), {1} dead-lettered as stuck in progress, {2} ms",
                        new Object[] {candidates.size(), deadLettered, took.toMillis()});
            }
        } finally {
            sweeping.set(false);
        }
    }
}
