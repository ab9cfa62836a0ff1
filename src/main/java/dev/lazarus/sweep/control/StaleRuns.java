package dev.lazarus.sweep.control;

import dev.lazarus.deadletter.control.DeadLetterReport;
import dev.lazarus.deadletter.control.DeadLetterService;
import dev.lazarus.pipeline.control.Pipelines;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.StepExecution;
import dev.lazarus.sweep.control.StalenessRules.Kind;
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

/**
 * Finds runs that stopped making progress and dead-letters them.
 *
 * <p>The candidates of each kind come from one indexed range query ({@code state} plus the state's clock
 * column) with the shortest threshold of any step, so a sweep reads the stale runs, not all runs. Each
 * candidate is then judged against its own step's threshold and dead-lettered in a transaction of its own,
 * under the run's version: a consumer that finishes meanwhile, or another node sweeping at the same moment,
 * wins cleanly and the run gets exactly one dead letter.
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

    /** Live runs of this kind whose clock is older than the shortest threshold, oldest first, at most {@code limit}. */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public List<UUID> candidates(Kind kind, Instant now, int limit) {
        String clock = kind == Kind.STUCK ? "r.heartbeatAt" : "r.updatedAt";
        return em.createQuery("select r.id from Run r where r.state = :state and " + clock + " < :cutoff order by " + clock, UUID.class)
                .setParameter("state", kind.state)
                .setParameter("cutoff", now.minus(rules.shortest(kind)))
                .setMaxResults(limit)
                .getResultList();
    }

    /** @return whether this call dead-lettered the run */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public boolean deadLetterIfStale(UUID runId, Kind kind, Instant now) {
        Run run = em.find(Run.class, runId);
        if (run == null || run.state() != kind.state) {
            return false;
        }
        Optional<StepDefinition> step = pipelines.step(run.pipeline(), run.currentStep());
        if (step.isEmpty()) {
            return false; // its pipeline is no longer deployed; nothing here can judge it
        }
        Duration threshold = rules.threshold(kind, run.pipeline(), run.currentStep());
        Instant since = StalenessRules.clockStart(run.state(), run.heartbeatAt(), run.updatedAt());
        if (!since.isBefore(now.minus(threshold))) {
            return false;
        }
        int attempts = em.createQuery("select s from StepExecution s where s.run = :run and s.stepName = :step and s.generation = :generation",
                        StepExecution.class)
                .setParameter("run", run)
                .setParameter("step", run.currentStep())
                .setParameter("generation", run.generation())
                .getResultStream().mapToInt(StepExecution::attempts).max().orElse(0);
        deadLetters.record(DeadLetterReport.runStalled(kind.reason, step.get(), run.id(), run.generation(), attempts,
                describe(kind, step.get().name(), since, threshold)));
        return true;
    }

    private static String describe(Kind kind, String step, Instant since, Duration threshold) {
        return switch (kind) {
            case STUCK -> "step " + step + " has given no sign of life since " + since + " (threshold " + threshold + ")";
            case WAITING -> "step " + step + " was dispatched at " + since + " and no consumer has picked it up (threshold " + threshold + ")";
            case UNRECOVERED -> "step " + step + " failed at " + since + " and has not been retried or recovered since (threshold " + threshold + ")";
        };
    }
}
