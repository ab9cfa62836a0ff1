package dev.lazarus.sweep.control;

import dev.lazarus.deadletter.control.DeadLetterReport;
import dev.lazarus.deadletter.control.DeadLetterService;
import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.pipeline.control.PipelineDefinition;
import dev.lazarus.pipeline.control.Pipelines;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.RunState;
import dev.lazarus.pipeline.entity.StepExecution;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Finds runs that stopped making progress and dead-letters them.
 *
 * <p>The candidates come from one indexed range query ({@code state, heartbeat_at}) with the shortest
 * threshold of any step, so a sweep reads the stale runs, not all runs. Each candidate is then judged
 * against its own step's threshold and dead-lettered in a transaction of its own, re-checked under the
 * run's version: a consumer that finishes meanwhile, or another node sweeping at the same moment, wins
 * cleanly and the run gets exactly one dead letter.
 */
@Stateless
public class StaleRuns {

    @PersistenceContext
    EntityManager em;

    @Inject
    Pipelines pipelines;

    @Inject
    DeadLetterService deadLetters;

    /** How long a step may run without a heartbeat, unless its pipeline says otherwise. */
    @Inject
    @ConfigProperty(name = "lazarus.sweep.stuck-after", defaultValue = "PT5M")
    Duration stuckAfter;

    @Inject
    @ConfigProperty(name = "lazarus.sweep.batch-size", defaultValue = "500")
    int batchSize;

    /** Runs in progress whose heartbeat is older than the shortest threshold, oldest first, one batch. */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public List<UUID> stuckCandidates(Instant now) {
        return em.createQuery("select r.id from Run r where r.state = :state and r.heartbeatAt < :cutoff order by r.heartbeatAt", UUID.class)
                .setParameter("state", RunState.IN_PROGRESS)
                .setParameter("cutoff", now.minus(shortestThreshold()))
                .setMaxResults(batchSize)
                .getResultList();
    }

    /** @return whether this call dead-lettered the run */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public boolean deadLetterIfStuck(UUID runId, Instant now) {
        Run run = em.find(Run.class, runId);
        if (run == null || run.state() != RunState.IN_PROGRESS || run.heartbeatAt() == null) {
            return false;
        }
        Optional<StepDefinition> step = pipelines.step(run.pipeline(), run.currentStep());
        if (step.isEmpty()) {
            return false; // its pipeline is no longer deployed; nothing here can judge it
        }
        Duration threshold = thresholdFor(step.get());
        if (!run.heartbeatAt().isBefore(now.minus(threshold))) {
            return false;
        }
        int attempts = em.createQuery("select s from StepExecution s where s.run = :run and s.stepName = :step and s.generation = :generation",
                        StepExecution.class)
                .setParameter("run", run)
                .setParameter("step", run.currentStep())
                .setParameter("generation", run.generation())
                .getResultStream().mapToInt(StepExecution::attempts).max().orElse(0);
        deadLetters.record(DeadLetterReport.runStalled(DeadLetterReason.STUCK_IN_PROGRESS, step.get(), run.id(),
                run.generation(), attempts, "step " + step.get().name() + " has given no sign of life since "
                        + run.heartbeatAt() + " (threshold " + threshold + ")"));
        return true;
    }

    public Duration thresholdFor(StepDefinition step) {
        return step.stuckAfterOverride().orElse(stuckAfter);
    }

    private Duration shortestThreshold() {
        Duration shortest = stuckAfter;
        for (PipelineDefinition pipeline : pipelines.all()) {
            for (StepDefinition step : pipeline.steps()) {
                Duration threshold = thresholdFor(step);
                if (threshold.compareTo(shortest) < 0) {
                    shortest = threshold;
                }
            }
        }
        return shortest;
    }
}
