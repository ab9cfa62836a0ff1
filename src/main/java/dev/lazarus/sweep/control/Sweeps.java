package dev.lazarus.sweep.control;

import dev.lazarus.deadletter.control.DeadLetterReconciler;
import dev.lazarus.deadletter.control.DeadLetters;
import dev.lazarus.sweep.control.StalenessRules.Kind;
import dev.lazarus.platform.control.Failures;
import dev.lazarus.platform.control.Metrics;
import dev.lazarus.platform.control.TimerRuns;
import jakarta.annotation.Resource;
import jakarta.ejb.EJBException;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
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

    /** The sweep's name in {@link TimerRuns} (its persistent timer's runs, recorded by {@code WatchedTimers}). */
    public static final String NAME = "sweep";

    @Inject
    StaleRuns staleRuns;

    @Inject
    DeadLetterReconciler reconciler;

    @Inject
    Metrics metrics;

    @Inject
    DeadLetters deadLetters;

    /** Dead letters recorded before V14 (without a fingerprint rule) that one sweep gives their fingerprints by today's rule. */
    static final int FINGERPRINTS_PER_SWEEP = 1000;

    @Inject
    Clock clock;

    @Inject
    @ConfigProperty(name = "lazarus.sweep.batch-size", defaultValue = "1000")
    int batchSize;

    /**
     * Transactions a sweep runs at once; 0: as many as the machine has cores, at most 2 (each holds its batch of up
     * to 250 runs, with their payloads and snapshots, in memory).
     */
    @Inject
    @ConfigProperty(name = "lazarus.sweep.parallelism", defaultValue = "0")
    int parallelism;

    @Resource
    ManagedExecutorService executor;

    public SweepReport sweep() {
        Instant now = clock.instant();
        List<Chunk> chunks = new ArrayList<>();
        int candidates = 0;
        for (Kind kind : Kind.values()) {
            List<UUID> stale = staleRuns.candidates(kind, now, batchSize);
            candidates += stale.size();
            for (int from = 0; from < stale.size(); from += CHUNK) {
                chunks.add(new Chunk(kind, stale.subList(from, Math.min(stale.size(), from + CHUNK))));
            }
        }
        Map<Kind, Integer> deadLettered = deadLetterAll(chunks, now);
        DeadLetterReconciler.Result reconciled = reconciler.reconcile();
        try {
            deadLetters.fillMissingFingerprints(FINGERPRINTS_PER_SWEEP);
        } catch (EJBException e) {
            LOG.log(Level.WARNING, "Could not give older dead letters their fingerprints; the next sweep tries again: {0}",
                    Failures.rootMessage(e));
        }
        SweepReport report = new SweepReport(now, Duration.between(now, clock.instant()), candidates, deadLettered, reconciled);
        metrics.swept(report.totalDeadLettered(), report.took());
        if (report.changedAnything()) {
            LOG.log(Level.INFO, "Sweep: {0}", report);
        }
        return report;
    }

    /** Stale runs of one kind that one transaction dead-letters. */
    private record Chunk(Kind kind, List<UUID> runs) {
    }

    /**
     * The chunks, on {@link #lanes} threads at once (this one and pooled ones): a sweep's CPU is mostly the server's
     * own (building each dead letter), so an outage's worth is cleared by all cores, not one. The chunks hold
     * different runs, each locked in id order, so they never wait for each other.
     */
    private Map<Kind, Integer> deadLetterAll(List<Chunk> chunks, Instant now) {
        int laneCount = Math.max(1, Math.min(lanes(), chunks.size()));
        List<Future<Map<Kind, Integer>>> others = new ArrayList<>();
        for (int lane = 1; lane < laneCount; lane++) {
            int first = lane;
            try {
                others.add(executor.submit(() -> deadLetterLane(chunks, first, laneCount, now)));
            } catch (RejectedExecutionException busy) {
                others.add(CompletableFuture.completedFuture(deadLetterLane(chunks, first, laneCount, now)));
            }
        }
        Map<Kind, Integer> deadLettered = new EnumMap<>(Kind.class);
        Throwable failed = null;
        try {
            deadLetterLane(chunks, 0, laneCount, now).forEach((kind, count) -> deadLettered.merge(kind, count, Integer::sum));
        } catch (RuntimeException | Error e) {
            failed = e;
        }
        // every lane is waited for, whatever happened to the others: a sweep is over only when all its transactions are
        for (Future<Map<Kind, Integer>> lane : others) {
            try {
                lane.get().forEach((kind, count) -> deadLettered.merge(kind, count, Integer::sum));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failed = failed != null ? failed : new EJBException("interrupted while the sweep's other lanes were dead-lettering", e);
            } catch (ExecutionException | java.util.concurrent.CancellationException e) {
                failed = failed != null ? failed : new EJBException("a lane of the sweep failed", e);
            }
        }
        if (failed instanceof Error error) {
            throw error;
        }
        if (failed != null) {
            throw (RuntimeException) failed;
        }
        return deadLettered;
    }

    /** Chunks {@code first}, {@code first + step}, … of the list. */
    private Map<Kind, Integer> deadLetterLane(List<Chunk> chunks, int first, int step, Instant now) {
        Map<Kind, Integer> deadLettered = new EnumMap<>(Kind.class);
        for (Kind kind : Kind.values()) {
            deadLettered.put(kind, 0);
        }
        for (int i = first; i < chunks.size(); i += step) {
            Chunk chunk = chunks.get(i);
            deadLettered.merge(chunk.kind(), deadLetter(chunk.runs(), chunk.kind(), now), Integer::sum);
        }
        return deadLettered;
    }

    private int lanes() {
        return parallelism > 0 ? parallelism : Math.min(2, Runtime.getRuntime().availableProcessors());
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
