package dev.lazarus.pipeline.boundary;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.pipeline.control.Payloads;
import dev.lazarus.pipeline.control.RunSearches;
import dev.lazarus.pipeline.control.RunSummary;
import dev.lazarus.pipeline.control.RetriesNow;
import dev.lazarus.pipeline.control.Runs;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.RunSearch;
import dev.lazarus.pipeline.entity.RunState;
import dev.lazarus.pipeline.entity.RunTags;
import dev.lazarus.platform.boundary.JsonBodies;
import dev.lazarus.platform.boundary.Page;
import dev.lazarus.platform.boundary.QueryParams;
import dev.lazarus.platform.boundary.RequestSizeLimit;
import dev.lazarus.platform.control.Problem;
import dev.lazarus.platform.entity.Text;
import dev.lazarus.platform.control.TextInput;
import dev.lazarus.platform.control.Failures;
import jakarta.ejb.EJBException;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import java.io.InputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Runs over HTTP. {@code POST /api/runs} with {@code {"pipeline": "...", "payload": {...}}} starts one;
 * anything wrong with the request is refused with a problem response before anything is stored. A client
 * that may retry a submission it got no answer to names it with an {@code Idempotency-Key} header: the retry
 * answers 200 with the run the first one created (201 is for a run this request created).
 */
@Path("runs")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class RunsResource {

    static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    static final java.util.Set<String> LIST_PARAMETERS = java.util.Set.of("state", "deadLettered", "pipeline", "offset", "limit");
    private static final String BATCH_SHAPE = "{\"runs\": [{\"pipeline\": \"...\", \"payload\": {...}}, ...]}";

    @Inject
    Runs runs;

    @Inject
    RunDeadLetters deadLetters;

    @Inject
    RunStops stops;

    @Inject
    Payloads payloads;

    @Inject
    RunSearches searches;

    @Inject
    RetriesNow retries;

    @Inject
    @ConfigProperty(name = "lazarus.run.max-batch", defaultValue = "1000")
    int maxBatch;

    @POST
    public Response start(InputStream body, @HeaderParam(IDEMPOTENCY_KEY) String submissionKey, @Context UriInfo uri) {
        checkSubmissionKey(submissionKey);
        Runs.Submission submission = submission(readRequest(body), "");
        Runs.Started started = start(submission, submissionKey);
        Run run = started.run();
        URI location = uri.getAbsolutePathBuilder().path(run.id().toString()).build();
        if (!started.created()) {
            return Response.ok(RunView.summary(run, searches.tagsOf(run.id()))).location(location)
                    .header("Idempotency-Replayed", "true").build();
        }
        return Response.created(location).entity(RunView.summary(run, submission.tags())).build();
    }

    /**
     * {@code POST /api/runs/batch} with {@code {"runs": [{"pipeline": "...", "payload": {...}}, ...]}} starts them all
     * in one transaction, or none: every item is checked first and a refusal names each bad one by its index
     * ({@code runs[3].'payload' must be a JSON object}); an item's payload over the size limit is one of those (400). At most {@code lazarus.run.max-batch} runs (1 000), and the
     * request is held to the server's request size limit. Answers 201 with the runs in the order given; an
     * {@code Idempotency-Key} makes a retry of the same batch answer 200 with the runs the first one created.
     */
    @POST
    @Path("batch")
    public Response startBatch(InputStream body, @HeaderParam(IDEMPOTENCY_KEY) String submissionKey) {
        checkSubmissionKey(submissionKey);
        int limit = (int) Math.min(Integer.MAX_VALUE - 8, RequestSizeLimit.limit());
        JsonObject request = JsonBodies.readObject(body, limit, BATCH_SHAPE, "the batch is larger than " + limit
                + " bytes (" + RequestSizeLimit.PROPERTY + "): split it");
        if (!(request.get("runs") instanceof JsonArray items) || items.isEmpty()) {
            throw Problem.badRequest("'runs' is required and must be a non-empty array: " + BATCH_SHAPE);
        }
        if (items.size() > maxBatch) {
            throw Problem.tooLarge("a batch may start at most " + maxBatch + " runs (lazarus.run.max-batch); this one has "
                    + items.size() + ": split it");
        }
        List<Runs.Submission> submissions = new ArrayList<>(items.size());
        List<String> invalid = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            try {
                if (!(items.get(i) instanceof JsonObject item)) {
                    throw Problem.badRequest("runs[" + i + "] must be an object {\"pipeline\": \"...\", \"payload\": {...}}");
                }
                submissions.add(submission(item, "runs[" + i + "]."));
            } catch (Problem bad) {
                invalid.add(bad.detail());
            }
        }
        if (!invalid.isEmpty()) {
            throw Problem.badRequest(Problem.listing(invalid, items.size() + " runs") + "; nothing was started");
        }
        Runs.StartedBatch started = startAll(submissions, submissionKey);
        JsonArrayBuilder views = JSON.createArrayBuilder();
        for (int i = 0; i < started.runs().size(); i++) {
            Run run = started.runs().get(i);
            RunTags tags = submissions.get(i).tags();
            JsonObjectBuilder view = JSON.createObjectBuilder().add("id", run.id().toString())
                    .add("pipeline", run.pipeline()).add("state", run.state().name()).add("currentStep", run.currentStep());
            if (!tags.isEmpty()) {
                view.add("key", tags.key() == null ? JsonValue.NULL : JSON.createValue(tags.key())).add("labels", JSON.createArrayBuilder(tags.labels()));
            }
            views.add(view);
        }
        JsonObject answer = JSON.createObjectBuilder().add("count", started.runs().size()).add("runs", views).build();
        return started.created() ? Response.status(Response.Status.CREATED).entity(answer).build()
                : Response.ok(answer).header("Idempotency-Replayed", "true").build();
    }

    /** One run's pipeline, payload and tags as a request gives them, checked; {@code where} prefixes each complaint. */
    private Runs.Submission submission(JsonObject request, String where) {
        if (!(request.get("pipeline") instanceof JsonString pipeline) || pipeline.getString().isBlank()) {
            throw Problem.badRequest(where + "'pipeline' is required and must be a string naming a pipeline");
        }
        String name = TextInput.name(where + "pipeline", pipeline.getString(), Run.NAME_LENGTH);
        JsonObject payload = payloads.accept(request.getOrDefault("payload", JsonValue.EMPTY_JSON_OBJECT), where + "'payload'");
        return new Runs.Submission(name, payload, tags(request, where));
    }

    /**
     * {@code "key": "..."} (a string), {@code "labels": ["...", ...]} and {@code "uniqueKey": true|false}, each optional
     * (see {@link RunTags} for their limits).
     */
    private static RunTags tags(JsonObject request, String where) {
        JsonValue key = request.getOrDefault("key", JsonValue.NULL);
        JsonValue labels = request.getOrDefault("labels", JsonValue.NULL);
        JsonValue unique = request.getOrDefault("uniqueKey", JsonValue.FALSE);
        if (key != JsonValue.NULL && !(key instanceof JsonString)) {
            throw Problem.badRequest(where + "'key' must be a string (a business key such as an order id)");
        }
        if (labels != JsonValue.NULL && !(labels instanceof JsonArray)) {
            throw Problem.badRequest(where + "'labels' must be an array of strings");
        }
        if (unique != JsonValue.TRUE && unique != JsonValue.FALSE) {
            throw Problem.badRequest(where + "'uniqueKey' must be true or false");
        }
        List<String> names = new ArrayList<>();
        if (labels instanceof JsonArray array) {
            if (array.size() > RunTags.MAX_LABELS) {
                throw Problem.badRequest(where + "'labels' may hold at most " + RunTags.MAX_LABELS + " labels, has " + array.size());
            }
            for (int i = 0; i < array.size(); i++) {
                if (!(array.get(i) instanceof JsonString label)) {
                    throw Problem.badRequest(where + "'labels[" + i + "]' must be a string");
                }
                names.add(label.getString());
            }
        }
        try {
            return new RunTags(key instanceof JsonString text ? text.getString() : null, names, unique == JsonValue.TRUE);
        } catch (IllegalArgumentException bad) {
            throw Problem.badRequest(where + bad.getMessage());
        }
    }

    private Runs.StartedBatch startAll(List<Runs.Submission> submissions, String submissionKey) {
        try {
            return runs.startAll(submissions, submissionKey);
        } catch (EJBException raced) {
            // the same batch twice at once: the later one's inserts fail on the keys, and the earlier one's runs are there
            if ((submissionKey != null || submissions.stream().anyMatch(s -> s.tags().uniqueKey())) && Failures.isDuplicateKey(raced)) {
                return runs.startAll(submissions, submissionKey);
            }
            if (submissionKey != null && Failures.isLockTimeout(raced)) {
                throw Problem.conflict("a batch with this Idempotency-Key is still in progress; retry it shortly");
            }
            throw raced;
        }
    }

    private Runs.Started start(Runs.Submission submission, String submissionKey) {
        try {
            return runs.start(submission, submissionKey);
        } catch (EJBException raced) {
            // Two submissions with one key at once: the later insert fails on the key; the earlier run is there now.
            // (A business key taken meanwhile is found by the second try, which refuses it with a 409.)
            if ((submissionKey != null || submission.tags().uniqueKey()) && Failures.isDuplicateKey(raced)) {
                return runs.start(submission, submissionKey);
            }
            // ... or the earlier one is still in its transaction (waiting for the broker, say) past the lock timeout
            if (submissionKey != null && Failures.isLockTimeout(raced)) {
                throw Problem.conflict("a submission with this Idempotency-Key is still in progress; retry it shortly");
            }
            throw raced;
        }
    }

    private static void checkSubmissionKey(String key) {
        if (key != null && (key.isEmpty() || key.length() > Run.SUBMISSION_KEY_LENGTH
                || !key.chars().allMatch(c -> c >= 0x21 && c <= 0x7e))) {
            throw Problem.badRequest(IDEMPOTENCY_KEY + " must be 1 to " + Run.SUBMISSION_KEY_LENGTH
                    + " visible ASCII characters (a UUID is a good choice)");
        }
    }

    @GET
    @Path("{id}")
    public RunView get(@PathParam("id") String id) {
        UUID runId = uuid(id);
        Run run = runs.find(runId).orElseThrow(() -> Problem.notFound("no run " + id));
        return RunView.of(run, runs.steps(runId), deadLetters.latestFor(runId).orElse(null), searches.tagsOf(runId));
    }

    /**
     * Stops a live run by hand, {@code {"note": "why"}} (operator; the note is required): it ends as a dead letter with
     * reason {@code MANUAL}, who (the authenticated caller) and why, and no message of the dispatch it was at runs the step
     * after this answers (a handler running now has its result discarded). Answers the run as it now is, its dead letter
     * included; a requeue of that dead letter brings it back. A run that has ended (completed, or stopped already) is a
     * 409 naming its state; an id that is not a UUID is a 404, as for {@code GET}.
     */
    @POST
    @Path("{id}/stop")
    public RunView stop(@PathParam("id") String id, InputStream body) {
        UUID runId = uuid(id);
        stops.stop(runId, JsonBodies.note(body));
        return get(id);
    }

    /**
     * Retry now (operator): the run's step failed and waits in backoff (its message scheduled for redelivery on the
     * broker); its message is delivered at once. 202 with what was asked of which brokers; 404 for no such run; 409
     * naming why the run is not waiting in backoff (completed, dead-lettered, in progress, dispatched, or its step paused
     * or held). See {@link RetriesNow}.
     */
    @POST
    @Path("{id}/retry-now")
    public Response retryNow(@PathParam("id") String id) {
        UUID runId = uuid(id);
        RetriesNow.Requested requested = retries.deliverNow(runId, retries.waitingInBackoff(runId));
        return Response.accepted(requested).build();
    }

    /**
     * Newest first, filtered by state, pipeline and what the operator knows ({@link SearchParams}: {@code key},
     * {@code label}, {@code payload.<path>}); each run with its key and labels.
     */
    @GET
    public Page<RunView> list(@QueryParam("state") String state, @QueryParam("deadLettered") String deadLetteredParam,
                              @QueryParam("pipeline") String pipeline,
                              @QueryParam("offset") String offset, @QueryParam("limit") String limit, @Context UriInfo uri) {
        RunSearch search = SearchParams.read(uri, LIST_PARAMETERS);
        Boolean deadLettered = QueryParams.bool("deadLettered", deadLetteredParam);
        RunState wanted = QueryParams.enumValue(RunState.class, "state", state);
        pipeline = TextInput.name("pipeline", pipeline, Run.NAME_LENGTH);
        if (Boolean.TRUE.equals(deadLettered)) {
            if (wanted != null && wanted != RunState.DEAD_LETTERED) {
                throw Problem.badRequest("deadLettered=true contradicts state=" + wanted);
            }
            wanted = RunState.DEAD_LETTERED;
        }
        int first = QueryParams.offset(offset);
        int size = QueryParams.limit(limit);
        List<RunSummary> found = runs.list(wanted, pipeline, search, first, size);
        Map<UUID, RunTags> tags = searches.tagsOf(found.stream().map(RunSummary::id).toList());
        return new Page<>(found.stream().map(run -> RunView.summary(run, tags.getOrDefault(run.id(), RunTags.NONE))).toList(),
                runs.countFound(wanted, pipeline, search), first, size);
    }

    /** The whole request may be the payload limit plus room for the envelope. */
    private JsonObject readRequest(InputStream body) {
        int limit = payloads.requestBytes() + 4096;
        return JsonBodies.readObject(body, limit, "{\"pipeline\": \"...\", \"payload\": {...}}",
                "the request is larger than " + limit + " bytes; payloads may have at most " + payloads.maxBytes()
                        + " bytes (lazarus.run.max-payload-bytes)");
    }

    private static UUID uuid(String value) {
        try {
            return UUID.fromString(value);
        } catch (IllegalArgumentException e) {
            throw Problem.notFound("no run " + Text.printable(value, 100) + " (run ids are UUIDs)");
        }
    }
}
