package dev.lazarus.pipeline.control;

import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.RunSearch;
import dev.lazarus.pipeline.entity.RunState;
import dev.lazarus.pipeline.entity.RunTags;
import dev.lazarus.pipeline.entity.StepExecution;
import dev.lazarus.platform.control.Counted;
import dev.lazarus.platform.control.Failures;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.TypedQuery;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Starting runs and reading them back. A start records the runs and their first dispatches ({@link NewRuns}, one
 * database transaction) and then sends the dispatches; one the broker does not take is sent again by
 * {@code DispatchRecovery}, so a run that was stored always starts.
 */
@Stateless
public class Runs {

    @PersistenceContext
    EntityManager em;

    @Inject
    NewRuns newRuns;

    @Inject
    Dispatches dispatches;

    /** Stores the run and dispatches its first step. */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public Run start(String pipelineName, JsonObject payload) {
        return start(pipelineName, payload, null).run();
    }

    /**
     * A submission's outcome: the run, whether this submission created it or an earlier one with its key did, and the
     * dispatch it made (none for an earlier run).
     */
    public record Started(Run run, boolean created, List<StepDispatcher.Dispatch> dispatches) {
    }

    /**
     * Starts a run like {@link #start(String, JsonObject)}; with a {@code submissionKey} (the client's
     * Idempotency-Key) a run an earlier submission with that key created is returned instead, and a key
     * reused for a different request is refused. Two submissions with one key racing each other: the second
     * one's insert fails on the unique key and rolls back; the caller asks again and finds the first one's run.
     */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public Started start(String pipelineName, JsonObject payload, String submissionKey) {
        try (Dispatches.Recording recording = dispatches.recording()) {
            Started started = committed(recording, () -> newRuns.start(pipelineName, payload, submissionKey, recording.incarnation()));
            recording.send(started.dispatches()); // one it could not send is sent again by the dispatch recovery
            return started;
        }
    }

    /**
     * Starts a run like {@link #start(String, JsonObject, String)}, of an internal pipeline too: for Lazarus's own callers
     * only, with a payload they wrote (see {@link PipelineDefinition#requireExternalRuns}).
     */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public Started startInternal(String pipelineName, JsonObject payload, String submissionKey) {
        try (Dispatches.Recording recording = dispatches.recording()) {
            Started started = committed(recording, () -> newRuns.startInternal(pipelineName, payload, submissionKey, recording.incarnation()));
            recording.send(started.dispatches()); // one it could not send is sent again by the dispatch recovery
            return started;
        }
    }

    /** One run to start: its pipeline, payload and tags, already checked for shape by the caller. */
    public record Submission(String pipeline, JsonObject payload, RunTags tags) {

        public Submission {
            tags = tags == null ? RunTags.NONE : tags;
        }

        public Submission(String pipeline, JsonObject payload) {
            this(pipeline, payload, RunTags.NONE);
        }
    }

    /** Starts a run like {@link #start(String, JsonObject, String)}, with its tags (a {@code uniqueKey} may be refused: 409). */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public Started start(Submission submission, String submissionKey) {
        try (Dispatches.Recording recording = dispatches.recording()) {
            Started started = committed(recording, () -> newRuns.start(submission, submissionKey, recording.incarnation()));
            recording.send(started.dispatches());
            return started;
        }
    }

    /**
     * Starts a run and has {@code alongside} record what goes with it in the run's transaction (see
     * {@link NewRuns#start(Runs.Submission, String, String, String, java.util.function.Consumer)}); the first step is
     * dispatched after the commit, as for any submission. With a {@code submissionKey} (the client's Idempotency-Key),
     * {@code request} is what its retry must repeat, and a retry answers the run the first request started.
     */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public Started startAlong(String pipelineName, JsonObject payload, String submissionKey, String request,
                              java.util.function.Consumer<Run> alongside) {
        try (Dispatches.Recording recording = dispatches.recording()) {
            Started started = committed(recording,
                    () -> newRuns.start(new Submission(pipelineName, payload), submissionKey, request, recording.incarnation(), alongside));
            recording.send(started.dispatches()); // one it could not send is sent again by the dispatch recovery
            return started;
        }
    }

    /** A batch's outcome: its runs in the order submitted, whether this request created them, and their dispatches. */
    public record StartedBatch(List<Run> runs, boolean created, List<StepDispatcher.Dispatch> dispatches) {
    }

    /**
     * Starts every run of a batch: all are stored with their first dispatches in one transaction, or none, and then
     * dispatched. Unknown pipelines are refused together, each named by its index. With a {@code submissionKey}, run
     * {@code i} is keyed {@code <caller>:<key> #<i>}: a retry of the same batch gets the runs its first attempt created;
     * the key reused for a different batch (other runs, another order, more or fewer) is refused.
     */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public StartedBatch startAll(List<Submission> submissions, String submissionKey) {
        try (Dispatches.Recording recording = dispatches.recording()) {
            StartedBatch started = committed(recording, () -> newRuns.startAll(submissions, submissionKey, recording.incarnation()));
            recording.send(started.dispatches()); // those it could not send are sent again by the dispatch recovery
            return started;
        }
    }

    /**
     * Runs a submission's transaction. When its commit's outcome is unknown (a commit cut by the database going away is a
     * heuristic hazard, not a rollback; the database drill saw such runs stored, found by the client's retry and never
     * dispatched), its dispatches are left to the dispatch recovery. Any other failure rolled back for sure (a refusal, a
     * clash of keys, no connection) and retires nothing: a retired incarnation costs the recovery a look on every pass.
     */
    static <T> T committed(Dispatches.Recording recording, java.util.function.Supplier<T> submission) {
        try {
            return submission.get();
        } catch (RuntimeException failed) {
            if (Failures.commitOutcomeUnknown(failed)) {
                recording.outcomeUnknown();
            }
            throw failed;
        }
    }

    public Optional<Run> findBySubmissionKey(String submissionKey) {
        return em.createQuery("select r from Run r where r.submissionKey = :key", Run.class)
                .setParameter("key", submissionKey)
                .getResultStream().findFirst();
    }

    public Optional<Run> find(UUID id) {
        return Optional.ofNullable(em.find(Run.class, id));
    }

    public List<StepExecution> steps(UUID runId) {
        return em.createQuery("select s from StepExecution s where s.run.id = :run order by s.id", StepExecution.class)
                .setParameter("run", runId)
                .getResultList();
    }

    /** Newest first, as summaries (no payloads); {@code state} null for all. */
    public List<RunSummary> list(RunState state, String pipeline, int offset, int limit) {
        return list(state, pipeline, RunSearch.NONE, offset, limit);
    }

    /** The same, of the runs a search finds ({@link RunSearches#condition}). */
    public List<RunSummary> list(RunState state, String pipeline, RunSearch search, int offset, int limit) {
        RunSearches.planForTheseValues(em, search);
        Map<String, Object> parameters = new HashMap<>();
        TypedQuery<RunSummary> query = em.createQuery(RunSummary.SELECT + " where " + where(state, pipeline, search, parameters)
                + " order by r.createdAt desc, r.id", RunSummary.class);
        parameters.forEach(query::setParameter);
        return query.setFirstResult(offset).setMaxResults(limit).getResultList();
    }

    public long count(RunState state, String pipeline) {
        return count(state, pipeline, RunSearch.NONE);
    }

    public long count(RunState state, String pipeline, RunSearch search) {
        RunSearches.planForTheseValues(em, search);
        Map<String, Object> parameters = new HashMap<>();
        TypedQuery<Long> query = em.createQuery("select count(r) from Run r where " + where(state, pipeline, search, parameters), Long.class);
        parameters.forEach(query::setParameter);
        return query.getSingleResult();
    }

    /**
     * The runs a search finds, counted up to {@link RunSearches#COUNT_CAP}: rows read with a limit, so a search that
     * matches a third of all runs costs a thousand index lookups, not a count of all of them.
     */
    public Counted countFound(RunState state, String pipeline, RunSearch search) {
        if (search == null || search.isEmpty()) {
            return new Counted(count(state, pipeline, search), false);
        }
        RunSearches.planForTheseValues(em, search);
        Map<String, Object> parameters = new HashMap<>();
        TypedQuery<UUID> query = em.createQuery("select r.id from Run r where " + where(state, pipeline, search, parameters), UUID.class);
        parameters.forEach(query::setParameter);
        return Counted.upTo(RunSearches.COUNT_CAP, query.setMaxResults(RunSearches.COUNT_CAP + 1).getResultList().size());
    }

    private static String where(RunState state, String pipeline, RunSearch search, Map<String, Object> parameters) {
        List<String> conditions = new ArrayList<>();
        if (state != null) {
            conditions.add("r.state = :state");
            parameters.put("state", state);
        }
        if (pipeline != null) {
            conditions.add("r.pipeline = :pipeline");
            parameters.put("pipeline", pipeline);
        }
        String found = RunSearches.condition(search, "r.id", parameters);
        if (found != null) {
            conditions.add(found);
        }
        return conditions.isEmpty() ? "1 = 1" : String.join(" and ", conditions);
    }
}
