package dev.lazarus.sweep.control;

import dev.lazarus.deadletter.control.DeadLetterReport;
import dev.lazarus.deadletter.control.DeadLetterService;
import dev.lazarus.pipeline.control.Pipelines;
import dev.lazarus.pipeline.control.StepControls;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.pipeline.entity.StepControl;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.StepExecution;
import dev.lazarus.platform.control.Locks;
import dev.lazarus.sweep.control.StalenessRules.Kind;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Finds runs that stopped making progress and dead-letters them.
 *
 * <p>The candidates of each kind come from one indexed range query ({@code state} plus the state's clock
 * column) with the shortest threshold of any step, so a sweep reads the stale runs, not all runs. Each
 * candidate is then locked (skipping runs another transaction holds: a second node sweeping them, a consumer
 * committing), judged afresh against its own step's threshold and dead-lettered in a batch transaction, under the
 * run's version: a consumer that finishes meanwhile wins cleanly (the batch rolls back and is retried run by run)
 * and the run gets exactly one dead letter.
 */
@Stateless
public class StaleRuns {


    @PersistenceContext
    EntityManager em;

    @Inject
    Pipelines pipelines;

    @Inject
    StalenessRules rules;

    @Inject
    DeadLetterService deadLetters;

    @Inject
    StepControls stepControls;

    /**
     * Live runs of this kind that are stale by their own step's threshold, oldest first, at most {@code limit}: an index
     * range scan, with per-step conditions that make sure a batch never fills up with runs that are not stale yet (which
     * would hold back every run behind them); see {@link PastThreshold}.
     */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public List<UUID> candidates(Kind kind, Instant now, int limit) {
        Map<StepDefinition, StepControl> states = kind == Kind.STUCK ? Map.of() : stepControls.all();
        return PastThreshold.of(rules, pipelines, states, kind, now, 1.0, "")
                .map(stale -> stale.bind(em.createQuery("select r.id from Run r where " + stale.condition() + " order by " + stale.clock(),
                        UUID.class)).setMaxResults(limit).getResultList())
                .orElse(List.of());
    }

    /**
     * Dead-letters those of {@code runIds} that are still stale, all in one transaction of their own: the
     * batch commits or fails together (the caller then retries it run by run).
     *
     * @return how many this call dead-lettered
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int deadLetterIfStale(List<UUID> runIds, Kind kind, Instant now) {
        // locked, skipping those another transaction holds (a second node sweeping them right now, a consumer's commit):
        // two sweepers split the work instead of failing each other's batches, and a run held for long (a transaction
        // in doubt) is left for a later sweep instead of holding up its whole batch; in id order, so that two sweepers
        // never wait for each other in a cycle
        List<Run> runs = Locks.skippingLocked(em.createQuery("select r from Run r where r.id in :ids and r.state = :state order by r.id", Run.class)
                        .setParameter("ids", runIds)
                        .setParameter("state", kind.state))
                .getResultList();
        Map<UUID, Integer> attempts = new HashMap<>();
        em.createQuery("select s from StepExecution s where s.run.id in :ids", StepExecution.class)
                .setParameter("ids", runIds)
                .getResultStream()
                .filter(s -> s.generation() == s.run().generation() && s.stepName().equals(s.run().currentStep()))
                .forEach(s -> attempts.merge(s.run().id(), s.attempts(), Math::max));
        List<DeadLetterReport> reports = new ArrayList<>(runs.size());
        Map<StepDefinition, StepControl> states = stepControls.all();
        for (Run run : runs) {
            Optional<StepDefinition> step = pipelines.step(run.pipeline(), run.currentStep());
            if (step.isEmpty()) {
                continue; // its pipeline is no longer deployed; nothing here can judge it
            }
            Duration threshold = rules.threshold(kind, run.pipeline(), run.currentStep());
            StepControl stepState = states.get(step.get());
            if (stepState != null && !stepState.isRunning()) {
                continue; // paused or held since it was found: it waits, it is not stale
            }
            Instant since = StalenessRules.clockStart(run.state(), run.heartbeatAt(), run.updatedAt(),
                    stepState == null ? null : stepState.resumedAt());
            if (!since.isBefore(now.minus(threshold))) {
                continue;
            }
            reports.add(DeadLetterReport.runStalled(kind.reason, step.get(), run.id(), run.generation(),
                    attempts.getOrDefault(run.id(), 0), describe(kind, step.get().name(), since, threshold)));
        }
        deadLetters.recordSweepBatch(reports, runs);
        int deadLettered = reports.size();
        em.flush(); // the runs' version checks happen here, inside this batch's transaction
        return deadLettered;
    }

    private static String describe(Kind kind, String step, Instant since, Duration threshold) {
        return switch (kind) {
            case STUCK -> "step " + step + " has given no sign of life since " + since + " (threshold " + threshold + ")";
            case WAITING -> "step " + step + " was dispatched at " + since + " and no consumer has picked it up (threshold " + threshold + ")";
            case UNRECOVERED -> "step " + step + " failed at " + since + " and has not been retried or recovered since (threshold " + threshold + ")";
        };
    }
}
