package dev.lazarus.sweep.control;

import dev.lazarus.deadletter.control.DeadLetterReconciler;
import dev.lazarus.deadletter.control.DeadLetters;
import dev.lazarus.sweep.control.StalenessRules.Kind;
import dev.lazarus.platform.control.Failures;
import dev.lazarus.platform.control.Metrics;
import dev.lazarus.platform.control.TimerRuns;
import jakarta.ejb.EJBException;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * One sweep, as every node runs it: dead-letter the stale runs of each kind (in bounded batches), then
 * reconcile the dead-letter queues with the diagnostics. Safe when several nodes sweep at once.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class Sweeps {

    private static final Logger LOG = Logger.getLogger(Sweeps.class.getName());

    /**
     * Stale runs dead-lettered per transaction: few transactions for an outage's worth, and a bounded memory and
     * lock footprint (each run's payload and its dead letter's snapshot can reach 200 000 characters).
     */
    static final int CHUNK = 250;

    /** The sweep's name in {@link TimerRuns}. */
    public static final String NAME = "sweep";

    @Inject
    StaleRuns staleRuns;

    @Inject
    DeadLetterReconciler reconciler;

    @Inject
    TimerRuns timerRuns;

    @Inject
    Metrics metrics;

    @Inject
    DeadLetters deadLetters;

    /** Dead letters recorded before there were fingerprints that one sweep gives theirs. */
    static final int FINGERPRINTS_PER_SWEEP = 1000;

    @Inject
    Clock clock;

    @Inject
    @ConfigProperty(name = "lazarus.sweep.batch-size", defaultValue = "1000")
    int batchSize;

    public SweepReport sweep() {
        Instant now = clock.instant();
        Map<Kind, Integer> deadLettered = new EnumMap<>(Kind.class);
        int candidates = 0;
        for (Kind kind : Kind.values()) {
            List<UUID> stale = staleRuns.candidates(kind, now, batchSize);
            candidates += stale.size();
            int count = 0;
            for (int from = 0; from < stale.size(); from += CHUNK) {
                count += deadLetter(stale.subList(from, Math.min(stale.size(), from + CHUNK)), kind, now);
            }
            deadLettered.put(kind, count);
        }
        DeadLetterReconciler.Result reconciled = reconciler.reconcile();
        try {
            deadLetters.fillMissingFingerprints(FINGERPRINTS_PER_SWEEP);
        } catch (EJBException e) {
            LOG.log(Level.WARNING, "Could not give older dead letters their fingerprints; the next sweep tries again: {0}",
                    Failures.rootMessage(e));
        }
        SweepReport report = new SweepReport(now, Duration.between(now, clock.instant()), candidates, deadLettered, reconciled);
        metrics.swept(report.totalDeadLettered(), report.took());
        try {
            timerRuns.finished(NAME, report.took());
        } catch (EJBException e) {
            metrics.diagnosticsWriteFailed("sweep_finished");
            LOG.log(Level.WARNING, "Could not record when this sweep finished: {0}", Failures.rootMessage(e));
        }
        if (report.changedAnything()) {
            LOG.log(Level.INFO, "Sweep: {0}", report);
        }
        return report;
    }

    /** One chunk in one transaction; if it fails (a run changed under it), run by run. */
    private int deadLetter(List<UUID> chunk, Kind kind, Instant now) {
        try {
            return staleRuns.deadLetterIfStale(chunk, kind, now);
        } catch (EJBException batchFailed) {
            int count = 0;
            for (UUID run : chunk) {
                try {
                    count += staleRuns.deadLetterIfStale(List.of(run), kind, now);
                } catch (EJBException e) {
                    // usually another node swept it, or its consumer moved on, at the same moment (then the next
                    // sweep finds it no longer stale); otherwise its dead letter could not be written: say so loudly
                    LOG.log(Level.WARNING, "Run {0} could not be dead-lettered by this sweep (changed meanwhile, or its"
                            + " diagnostics could not be written); the next sweep looks at it again: {1}",
                            new Object[] {run, Failures.rootMessage(e)});
                }
            }
            return count;
        }
    }


    public record SweepReport(Instant startedAt, Duration took, int candidates, Map<Kind, Integer> deadLettered,
                              DeadLetterReconciler.Result reconciled) {

        public int totalDeadLettered() {
            return deadLettered.values().stream().mapToInt(Integer::intValue).sum();
        }

        boolean changedAnything() {
            return candidates > 0 || reconciled.recorded() > 0 || reconciled.flaggedMissing() > 0 || reconciled.failed() > 0;
        }

        @Override
        public String toString() {
            return candidates + " stale candidate(s), dead-lettered " + deadLettered + ", reconciled " + reconciled
                    + ", " + took.toMillis() + " ms";
        }
    }
}
