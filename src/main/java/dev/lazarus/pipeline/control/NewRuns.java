package dev.lazarus.pipeline.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.RunTags;
import dev.lazarus.platform.control.Problem;
import dev.lazarus.platform.control.Tracing;
import io.opentelemetry.context.Scope;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.annotation.Resource;
import jakarta.ejb.SessionContext;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
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
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Records new runs, each with the dispatch of its first step, in one database transaction of its own: the messages are
 * sent by {@link Runs} once it has committed (so a consumer never receives a message before it can read the run), and
 * the runs name the incarnation that sends them ({@link Dispatches}).
 */
@Stateless
public class NewRuns {

    @PersistenceContext
    EntityManager em;

    @Inject
    Pipelines pipelines;

    @Inject
    Tracing tracing;

    @Inject
    RunSearches searches;

    @Inject
    Clock clock;

    @Resource
    SessionContext session;

    /**
     * Starts a run like {@link #start(String, JsonObject)}; with a {@code submissionKey} (the client's
     * Idempotency-Key) a run an earlier submission with that key created is returned instead, and a key
     * reused for a different request is refused. Two submissions with one key racing each other: the second
     * one's insert fails on the unique key and rolls back; the caller asks again and finds the first one's run.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public Runs.Started start(String pipelineName, JsonObject payload, String submissionKey, String incarnation) {
        return start(new Runs.Submission(pipelineName, payload), submissionKey, incarnation);
    }

    /**
     * The same, for a run with {@link RunTags}: with {@code uniqueKey}, a key another run of the pipeline carries is
     * refused (409) after the Idempotency-Key's replay (a retry of the very submission answers its run, not a refusal).
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public Runs.Started start(Runs.Submission submission, String submissionKey, String incarnation) {
        return start(submission, submissionKey, incarnation, run -> { });
    }

    /**
     * Starts a run like {@link #start(Runs.Submission, String, String)}, and has {@code alongside} record what goes
     * with it (a recreation's link and audit) in the same transaction, after the run is stored: both or neither.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public Runs.Started start(Runs.Submission submission, String submissionKey, String incarnation,
                              java.util.function.Consumer<Run> alongside) {
        return start(submission, submissionKey, null, incarnation, alongside);
    }

    /**
     * The same, for a request that is not a submission (a recreate): {@code request} says what a retry with the
     * Idempotency-Key must repeat (null: the submission's pipeline, payload and tags). A replay returns the earlier run
     * without calling {@code alongside}: what went with it was recorded by the request that created it.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public Runs.Started start(Runs.Submission submission, String submissionKey, String request, String incarnation,
                              java.util.function.Consumer<Run> alongside) {
        return start(submission, submissionKey, request, incarnation, alongside, false);
    }

    /**
     * Starts a run of a pipeline Lazarus runs for itself, {@link PipelineDefinition#requireExternalRuns internal} or not:
     * only for Lazarus's own callers (webhook notifications), never with a payload from outside.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public Runs.Started startInternal(String pipelineName, JsonObject payload, String submissionKey, String incarnation) {
        return start(new Runs.Submission(pipelineName, payload), submissionKey, null, incarnation, run -> { }, true);
    }

    private Runs.Started start(Runs.Submission submission, String submissionKey, String request, String incarnation,
                               java.util.function.Consumer<Run> alongside, boolean internal) {
        String pipelineName = submission.pipeline();
        JsonObject payload = submission.payload();
        PipelineDefinition pipeline = pipelines.find(pipelineName).orElseThrow(() -> Problem.unprocessable(
                "unknown pipeline '" + pipelineName + "'; known pipelines: "
                        + pipelines.all().stream().map(PipelineDefinition::name).toList()));
        if (!internal) {
            pipeline.requireExternalRuns("starting a run of it");
        }
        String key = submissionKey == null ? null : callerKey(submissionKey, "");
        String digest = key == null ? null : sha256(pipeline.name() + "\n" + (request != null ? request
                : canonical(payload) + tagged(submission.tags())));
        if (key != null) {
            Optional<Run> earlier = findBySubmissionKey(key);
            if (earlier.isPresent()) {
                if (!earlier.get().createdBy(digest)) {
                    throw Problem.unprocessable("Idempotency-Key '" + submissionKey + "' was already used for a different request"
                            + " (it started run " + earlier.get().id() + "); a retry must send the same " + (request != null
                            ? "request" : "pipeline and payload"));
                }
                return new Runs.Started(earlier.get(), false, List.of());
            }
        }
        searches.claimKeys(List.of(new RunSearches.Submitted(pipeline.name(), submission.tags())));
        StepDefinition first = pipeline.first();
        Run run = new Run(pipeline.name(), first.name(), payload.toString(), clock.instant());
        if (key != null) {
            run.submittedAs(key, digest);
        }
        run.dispatchedBy(incarnation);
        Tracing.RunSpan trace = tracing.startRun(pipeline.name(), false);
        try (Scope scope = trace.scope()) {
            run.tracedAs(trace.traceId());
            trace.identify(run.id());
            em.persist(run);
            searches.record(List.of(run), List.of(submission.tags()), List.of(payload));
            alongside.accept(run);
            return new Runs.Started(run, true, List.of(StepDispatcher.Dispatch.of(first,
                    new StepMessage(run.id(), first.name(), run.generation()), run.traceId())));
        } finally {
            trace.end();
        }
    }

    /**
     * The run an earlier request with this Idempotency-Key started, if there is one and it was this very request
     * ({@code request}, as {@link #start(Runs.Submission, String, String, String, java.util.function.Consumer)} takes it,
     * for a run of {@code pipelineName}); a key used for another request is refused (422). Lets a caller answer a retry
     * before it checks what only the first request had to find true.
     */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public Optional<Run> earlier(String pipelineName, String submissionKey, String request) {
        Optional<Run> earlier = findBySubmissionKey(callerKey(submissionKey, ""));
        if (earlier.isPresent() && !earlier.get().createdBy(sha256(pipelineName + "\n" + request))) {
            throw Problem.unprocessable("Idempotency-Key '" + submissionKey + "' was already used for a different request"
                    + " (it started run " + earlier.get().id() + "); a retry must send the same request");
        }
        return earlier;
    }

    /** Between a batch's key and an item's index in the stored keys: a space, which no Idempotency-Key contains. */
    private static final String BATCH_ITEM = " #";

    /**
     * Starts every run of a batch in one transaction: all are stored and their first steps dispatched, or none.
     * Unknown pipelines are refused together, each named by its index. With a {@code submissionKey}, run {@code i}
     * is keyed {@code <caller>:<key> #<i>} (a space, which no single run's key can hold, so the two never meet): a
     * retry of the same batch gets the runs its first attempt created; the key reused for a different batch (other
     * runs, another order, more or fewer) is refused.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public Runs.StartedBatch startAll(List<Runs.Submission> submissions, String submissionKey, String incarnation) {
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
        for (int i = 0; i < definitions.size(); i++) {
            definitions.get(i).requireExternalRuns("runs[" + i + "]: starting a run of it");
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
                        + canonical(submissions.get(i).payload()) + tagged(submissions.get(i).tags())));
            }
            Optional<List<Run>> earlier = earlierBatch(keys, digests, submissionKey);
            if (earlier.isPresent()) {
                return new Runs.StartedBatch(earlier.get(), false, List.of());
            }
        }
        searches.claimKeys(submissions.stream().map(s -> new RunSearches.Submitted(s.pipeline(), s.tags())).toList());
        Instant now = clock.instant();
        List<Run> started = new ArrayList<>(submissions.size());
        List<StepDispatcher.Dispatch> firstSteps = new ArrayList<>(submissions.size());
        for (int i = 0; i < submissions.size(); i++) {
            PipelineDefinition pipeline = definitions.get(i);
            StepDefinition first = pipeline.first();
            Run run = new Run(pipeline.name(), first.name(), submissions.get(i).payload().toString(), now);
            if (key != null) {
                run.submittedAs(keys.get(i), digests.get(i));
            }
            run.dispatchedBy(incarnation);
            // each run of a batch is a trace of its own, linked to the request's; its first step is dispatched under it
            Tracing.RunSpan trace = tracing.startRun(pipeline.name(), true);
            try (Scope scope = trace.scope()) {
                run.tracedAs(trace.traceId());
                trace.identify(run.id());
                em.persist(run);
                started.add(run);
                firstSteps.add(StepDispatcher.Dispatch.of(first, new StepMessage(run.id(), first.name(), run.generation()), run.traceId()));
            } finally {
                trace.end();
            }
        }
        searches.record(started, submissions.stream().map(Runs.Submission::tags).toList(),
                submissions.stream().map(Runs.Submission::payload).toList());
        return new Runs.StartedBatch(started, true, firstSteps);
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

    /**
     * A run's tags as part of what an Idempotency-Key's retry must repeat; nothing for a run without any, so a submission
     * without tags has the digest it had before tags existed.
     */
    private static String tagged(RunTags tags) {
        return tags.isEmpty() ? "" : "\nkey " + tags.key() + "\nlabels " + tags.labels() + "\nunique " + tags.uniqueKey();
    }

    /** JSON text with every object's members in name order: the same document however a client ordered it. */
    public static String canonical(JsonValue value) {
        if (value instanceof JsonObject object) {
            StringBuilder text = new StringBuilder("{");
            new TreeMap<>(object).forEach((name, member) -> text.append(text.length() > 1 ? "," : "")
                    .append(JSON.createValue(name)).append(':').append(canonical(member)));
            return text.append('}').toString();
        }
        if (value instanceof JsonArray array) {
            return array.stream().map(NewRuns::canonical).collect(Collectors.joining(",", "[", "]"));
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

    /**
     * The run an earlier submission with this key created, if any. Asked on every keyed submission, nearly always of a
     * key never seen: one indexed statement that returns nothing, and the run loaded only when there is one (a query
     * through the entity manager cost a submission more than its insert).
     */
    private Optional<Run> findBySubmissionKey(String submissionKey) {
        @SuppressWarnings("unchecked")
        List<UUID> ids = em.createNativeQuery("select id from run where submission_key = ?1", UUID.class)
                .setParameter(1, submissionKey)
                .getResultList();
        return ids.isEmpty() ? Optional.empty() : Optional.ofNullable(em.find(Run.class, ids.get(0)));
    }
}
