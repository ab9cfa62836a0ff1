package dev.lazarus.pipeline.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.RunState;
import dev.lazarus.pipeline.entity.StepExecution;
import dev.lazarus.platform.control.Problem;
import dev.lazarus.platform.control.Tracing;
import io.opentelemetry.context.Scope;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.annotation.Resource;
import jakarta.ejb.SessionContext;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.TypedQuery;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
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
    Tracing tracing;

    @Inject
    Clock clock;

    @Resource
    SessionContext session;

    /** Stores the run and dispatches its first step in one transaction: both happen or neither does. */
    public Run start(String pipelineName, JsonObject payload) {
        return start(pipelineName, payload, null).run();
    }

    /** A submission's outcome: the run, and whether this submission created it or an earlier one with its key did. */
    public record Started(Run run, boolean created) {
    }

    /**
     * Starts a run like {@link #start(String, JsonObject)}; with a {@code submissionKey} (the client's
     * Idempotency-Key) a run an earlier submission with that key created is returned instead, and a key
     * reused for a different request is refused. Two submissions with one key racing each other: the second
     * one's insert fails on the unique key and rolls back; the caller asks again and finds the first one's run.
     */
    public Started start(String pipelineName, JsonObject payload, String submissionKey) {
        PipelineDefinition pipeline = pipelines.find(pipelineName).orElseThrow(() -> Problem.unprocessable(
                "unknown pipeline '" + pipelineName + "'; known pipelines: "
                        + pipelines.all().stream().map(PipelineDefinition::name).toList()));
        String key = submissionKey == null ? null : callerKey(submissionKey, "");
        String digest = key == null ? null : sha256(pipeline.name() + "\n" + canonical(payload));
        if (key != null) {
            Optional<Run> earlier = findBySubmissionKey(key);
            if (earlier.isPresent()) {
                if (!earlier.get().createdBy(digest)) {
                    throw Problem.unprocessable("Idempotency-Key '" + submissionKey + "' was already used for a different request"
                            + " (it started run " + earlier.get().id() + "); a retry must send the same pipeline and payload");
                }
                return new Started(earlier.get(), false);
            }
        }
        StepDefinition first = pipeline.first();
        Run run = new Run(pipeline.name(), first.name(), payload.toString(), clock.instant());
        if (key != null) {
            run.submittedAs(key, digest);
        }
        Tracing.RunSpan trace = tracing.startRun(pipeline.name(), false);
        try (Scope scope = trace.scope()) {
            run.tracedAs(trace.traceId());
            trace.identify(run.id());
            em.persist(run);
            // Write the row before the message is sent: the database then joins the XA transaction first and
            // commits first, so a consumer never receives the message before it can read the run.
            em.flush();
            dispatcher.dispatch(first, new StepMessage(run.id(), first.name(), run.generation()), run.traceId());
        } finally {
            trace.end();
        }
        return new Started(run, true);
    }

    /** Between a batch's key and an item's index in the stored keys: a space, which no Idempotency-Key contains. */
    private static final String BATCH_ITEM = " #";

    /** One run of a batch: its pipeline and payload, already checked for shape by the caller. */
    public record Submission(String pipeline, JsonObject payload) {
    }

    /** A batch's outcome: its runs in the order submitted, and whether this request created them. */
    public record StartedBatch(List<Run> runs, boolean created) {
    }

    /**
     * Starts every run of a batch in one transaction: all are stored and their first steps dispatched, or none.
     * Unknown pipelines are refused together, each named by its index. With a {@code submissionKey}, run {@code i}
     * is keyed {@code <caller>:<key> #<i>} (a space, which no single run's key can hold, so the two never meet): a
     * retry of the same batch gets the runs its first attempt created; the key reused for a different batch (other
     * runs, another order, more or fewer) is refused.
     */
    public StartedBatch startAll(List<Submission> submissions, String submissionKey) {
        List<String> unknown = new ArrayList<>();
        List<PipelineDefinition> definitions = new ArrayList<>(submissions.size());
        for (int i = 0; i < submissions.size(); i++) {
            Optional<PipelineDefinition> definition = pipelines.find(submissions.get(i).pipeline());
            definition.ifPresent(definitions::add);
            if (definition.isEmpty()) {
                unknown.add("runs[" + i + "]: unknown pipeline '" + submissions.get(i).pipeline() + "'");
            }
        }
        if (!unknown.isEmpty()) {
            throw Problem.unprocessable(Problem.listing(unknown, submissions.size() + " runs") + "; known pipelines: "
                    + pipelines.all().stream().map(PipelineDefinition::name).toList());
        }
        String key = submissionKey == null ? null : callerKey(submissionKey, BATCH_ITEM + (submissions.size() - 1));
        List<String> keys = new ArrayList<>();
        List<String> digests = new ArrayList<>();
        if (key != null) {
            for (int i = 0; i < submissions.size(); i++) {
                keys.add(key + BATCH_ITEM + i);
                // the batch's size and the item's place are part of what a retry must repeat: a shorter or
                // reordered batch under the same key is another request
                digests.add(sha256(submissions.size() + "\n" + i + "\n" + submissions.get(i).pipeline() + "\n"
                        + canonical(submissions.get(i).payload())));
            }
            Optional<List<Run>> earlier = earlierBatch(keys, digests, submissionKey);
            if (earlier.isPresent()) {
                return new StartedBatch(earlier.get(), false);
            }
        }
        Instant now = clock.instant();
        List<Run> started = new ArrayList<>(submissions.size());
        List<Tracing.RunSpan> traces = new ArrayList<>(submissions.size());
        for (int i = 0; i < submissions.size(); i++) {
            PipelineDefinition pipeline = definitions.get(i);
            Run run = new Run(pipeline.name(), pipeline.first().name(), submissions.get(i).payload().toString(), now);
            if (key != null) {
                run.submittedAs(keys.get(i), digests.get(i));
            }
            // each run of a batch is a trace of its own, linked to the request's; its first step is dispatched under it
            Tracing.RunSpan trace = tracing.startRun(pipeline.name(), true);
            run.tracedAs(trace.traceId());
            trace.identify(run.id());
            traces.add(trace);
            em.persist(run);
            started.add(run);
        }
        em.flush(); // the rows first, as in start(): the database commits before any message can be delivered
        for (int i = 0; i < started.size(); i++) {
            StepDefinition first = definitions.get(i).first();
            Run run = started.get(i);
            try (Scope scope = traces.get(i).scope()) {
                dispatcher.dispatch(first, new StepMessage(run.id(), first.name(), run.generation()), run.traceId());
            } finally {
                traces.get(i).end();
            }
        }
        return new StartedBatch(started, true);
    }

    /** The runs an earlier request with this batch's keys started, if it was this very batch; refused if it was another. */
    private Optional<List<Run>> earlierBatch(List<String> keys, List<String> digests, String submissionKey) {
        List<Run> earlier = em.createQuery("select r from Run r where r.submissionKey in :keys", Run.class)
                .setParameter("keys", keys).getResultList();
        if (earlier.isEmpty()) {
            return Optional.empty();
        }
        Map<String, Run> byKey = earlier.stream().collect(Collectors.toMap(Run::submissionKey, r -> r));
        List<Run> replayed = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            Run run = byKey.get(keys.get(i));
            if (run == null || !run.createdBy(digests.get(i))) {
                throw Problem.unprocessable("Idempotency-Key '" + submissionKey + "' was already used for a different"
                        + " batch; a retry must send the same runs in the same order");
            }
            replayed.add(run);
        }
        return Optional.of(replayed);
    }

    /**
     * The stored form of a caller's Idempotency-Key: keys are per caller, so two operators choosing the same key
     * do not meet. {@code suffix} is what the longest stored key adds (a batch's index).
     */
    private String callerKey(String submissionKey, String suffix) {
        String key = session.getCallerPrincipal().getName() + ":" + submissionKey;
        if (key.length() + suffix.length() > Run.STORED_SUBMISSION_KEY_LENGTH) {
            int room = Run.STORED_SUBMISSION_KEY_LENGTH - (key.length() + suffix.length() - submissionKey.length());
            throw Problem.badRequest(room > 0 ? "the Idempotency-Key is too long for this user name"
                    + (suffix.isEmpty() ? "" : " and batch") + ": at most " + room + " characters"
                    : "this user name is too long to use Idempotency-Keys");
        }
        return key;
    }

    /** JSON text with every object's members in name order: the same document however a client ordered it. */
    static String canonical(JsonValue value) {
        if (value instanceof JsonObject object) {
            StringBuilder text = new StringBuilder("{");
            new TreeMap<>(object).forEach((name, member) -> text.append(text.length() > 1 ? "," : "")
                    .append(JSON.createValue(name)).append(':').append(canonical(member)));
            return text.append('}').toString();
        }
        if (value instanceof JsonArray array) {
            return array.stream().map(Runs::canonical).collect(Collectors.joining(",", "[", "]"));
        }
        return value.toString();
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
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
        TypedQuery<RunSummary> query = em.createQuery(RunSummary.SELECT + " where (:state is null or r.state = :state)"
                + " and (:pipeline is null or r.pipeline = :pipeline) order by r.createdAt desc, r.id", RunSummary.class)
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
