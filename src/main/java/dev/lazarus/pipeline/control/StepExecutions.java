package dev.lazarus.pipeline.control;

import dev.lazarus.pipeline.entity.StepExecution;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.FlushModeType;
import jakarta.persistence.PersistenceContext;
import java.util.Optional;
import java.util.UUID;

/** The step executions of runs, as the consumer's claim, the dead-letter rule and the reconciler look them up. */
@ApplicationScoped
public class StepExecutions {

    @PersistenceContext
    EntityManager em;

    /**
     * The execution of one dispatch of a run's step (there is at most one: a dispatch is a run, a step and a generation),
     * in the caller's transaction. Changes the caller has made and not flushed are not written first (a sweep's batch
     * keeps its updates for one batched flush).
     */
    public Optional<StepExecution> of(UUID runId, String step, long generation) {
        return em.createQuery("select s from StepExecution s where s.run.id = :run and s.stepName = :step and s.generation = :generation",
                        StepExecution.class)
                .setFlushMode(FlushModeType.COMMIT)
                .setParameter("run", runId)
                .setParameter("step", step)
                .setParameter("generation", generation)
                .getResultStream()
                .findFirst();
    }
}
