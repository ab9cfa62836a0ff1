package dev.lazarus.pipeline.boundary;

import dev.lazarus.deadletter.boundary.DeadLetterView;
import dev.lazarus.deadletter.control.DeadLetters;
import dev.lazarus.pipeline.control.Runs;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.RunState;
import dev.lazarus.platform.boundary.JsonBodies;
import dev.lazarus.platform.boundary.Page;
import dev.lazarus.platform.boundary.QueryParams;
import dev.lazarus.platform.control.Problem;
import dev.lazarus.platform.control.Failures;
import jakarta.ejb.EJBException;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
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
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;

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
    static final int MAX_PAYLOAD_DEPTH = 100;

    @Inject
    Runs runs;

    @Inject
    DeadLetters deadLetters;

    @Inject
    @ConfigProperty(name = "lazarus.run.max-payload-bytes", defaultValue = "65536")
    int maxPayloadBytes;

    @POST
    public Response start(InputStream body, @HeaderParam(IDEMPOTENCY_KEY) String submissionKey, @Context UriInfo uri) {
        checkSubmissionKey(submissionKey);
        JsonObject request = readRequest(body);
        if (!(request.get("pipeline") instanceof JsonString pipeline) || pipeline.getString().isBlank()) {
            throw Problem.badRequest("'pipeline' is required and must be a string naming a pipeline");
        }
        JsonValue payload = request.getOrDefault("payload", JsonValue.EMPTY_JSON_OBJECT);
        if (payload.getValueType() != JsonValue.ValueType.OBJECT) {
            throw Problem.badRequest("'payload' must be a JSON object");
        }
        if (JsonBodies.deeperThan(payload, MAX_PAYLOAD_DEPTH)) {
            // the parser's own limit is 1 000; a step that wraps its input must still be able to parse its output
            throw Problem.badRequest("'payload' nests deeper than " + MAX_PAYLOAD_DEPTH + " levels");
        }
        if (payload.toString().getBytes(StandardCharsets.UTF_8).length > maxPayloadBytes) {
            throw Problem.tooLarge("the payload is larger than " + maxPayloadBytes + " bytes (lazarus.run.max-payload-bytes)");
        }
        Runs.Started started = start(pipeline.getString(), payload.asJsonObject(), submissionKey);
        Run run = started.run();
        URI location = uri.getAbsolutePathBuilder().path(run.id().toString()).build();
        if (!started.created()) {
            return Response.ok(RunView.summary(run)).location(location).header("Idempotency-Replayed", "true").build();
        }
        return Response.created(location).entity(RunView.summary(run)).build();
    }

    private Runs.Started start(String pipeline, JsonObject payload, String submissionKey) {
        try {
            return runs.start(pipeline, payload, submissionKey);
        } catch (EJBException raced) {
            // Two submissions with one key at once: the later insert fails on the key; the earlier run is there now.
            if (submissionKey != null && Failures.isDuplicateKey(raced)) {
                return runs.start(pipeline, payload, submissionKey);
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
        return RunView.of(run, runs.steps(runId), deadLetters.latestFor(runId).map(DeadLetterView::detail).orElse(null));
    }

    @GET
    public Page<RunView> list(@QueryParam("state") String state, @QueryParam("deadLettered") Boolean deadLettered,
                              @QueryParam("pipeline") String pipeline,
                              @QueryParam("offset") Integer offset, @QueryParam("limit") Integer limit) {
        RunState wanted = QueryParams.enumValue(RunState.class, "state", state);
        if (Boolean.TRUE.equals(deadLettered)) {
            if (wanted != null && wanted != RunState.DEAD_LETTERED) {
                throw Problem.badRequest("deadLettered=true contradicts state=" + wanted);
            }
            wanted = RunState.DEAD_LETTERED;
        }
        int first = Page.offset(offset);
        int size = Page.limit(limit);
        return new Page<>(runs.list(wanted, pipeline, first, size).stream().map(RunView::summary).toList(),
                runs.count(wanted, pipeline), first, size);
    }

    /** The whole request may be the payload limit plus room for the envelope. */
    private JsonObject readRequest(InputStream body) {
        return JsonBodies.readObject(body, maxPayloadBytes + 4096, "{\"pipeline\": \"...\", \"payload\": {...}}",
                "the request is larger than " + (maxPayloadBytes + 4096) + " bytes; payloads may have at most "
                        + maxPayloadBytes + " bytes (lazarus.run.max-payload-bytes)");
    }

    private static UUID uuid(String value) {
        try {
            return UUID.fromString(value);
        } catch (IllegalArgumentException e) {
            throw Problem.notFound("no run " + value + " (run ids are UUIDs)");
        }
    }
}
