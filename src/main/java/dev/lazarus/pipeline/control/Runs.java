package dev.lazarus.pipeline.control;

import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.RunState;
import dev.lazarus.pipeline.entity.StepExecution;
import dev.lazarus.platform.control.Problem;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.TypedQuery;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Starting runs and reading them back. */
@Stateless
public class Runs {

    @PersistenceContext
    EntityManager em;

    @Inject
    Pipelines pipelines;

    @Inject
    StepDispatcher dispatcher;

    @Inject
    Clock clock;

    /** Stores the run and dispatches its first step in one transaction: both happen or neither does. */
    public Run start(String pipelineName, JsonObject payload) {
        PipelineDefinition pipeline = pipelines.find(pipelineName).orElseThrow(() -> Problem.unprocessable(
                "unknown pipeline '" + pipelineName + "'; known pipelines: "
                        + pipelines.all().stream().map(PipelineDefinition::name).toList()));
        StepDefinition first = pipeline.first();
        Run run = new Run(pipeline.name(), first.name(), payload.toString(), clock.instant());
        em.persist(run);
        // Write the row before the message is sent: the database then joins the XA transaction first and
        // commits first, so a consumer never receives the message before it can read the run.
        em.flush();
        dispatcher.dispatch(first, new StepMessage(run.id(), first.name(), run.generation()));
        return run;
    }

    public Optional<Run> find(UUID id) {
        return Optional.ofNullable(em.find(Run.class, id));
    }

    public List<StepExecution> steps(UUID runId) {
        return em.createQuery("select s from StepExecution s where s.run.id = :run order by s.id", StepExecution.class)
                .setParameter("run", runId)
                .getResultList();
    }

    /** Newest first; {@code state} null for all. */
    public List<Run> list(RunState state, String pipeline, int offset, int limit) {
        TypedQuery<Run> query = em.createQuery("select r from Run r where (:state is null or r.state = :state)"
                + " and (:pipeline is null or r.pipeline = :pipeline) order by r.createdAt desc, r.id", Run.class)
                .setParameter("state", state)
                .setParameter("pipeline", pipeline);
        return query.setFirstResult(offset).setMaxResults(limit).getResultList();
    }

    public long count(RunState state, String pipeline) {
        return em.createQuery("select count(r) from Run r where (:state is null or r.state = :state)"
                        + " and (:pipeline is null or r.pipeline = :pipeline)", Long.class)
                .setParameter("state", state)
                .setParameter("pipeline", pipeline)
                .getSingleResult();
    }
}
