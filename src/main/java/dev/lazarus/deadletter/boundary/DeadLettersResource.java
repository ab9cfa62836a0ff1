package dev.lazarus.deadletter.boundary;

import dev.lazarus.deadletter.control.DeadLetterStats;
import dev.lazarus.deadletter.control.DeadLetters;
import dev.lazarus.deadletter.control.Investigations;
import dev.lazarus.deadletter.control.Recreations;
import dev.lazarus.deadletter.control.RequeueService;
import dev.lazarus.deadletter.control.Runbooks;
import dev.lazarus.deadletter.entity.DeadLetterFilter;
import dev.lazarus.deadletter.control.DeadLetterSummary;
import dev.lazarus.pipeline.boundary.SearchParams;
import dev.lazarus.pipeline.control.Payloads;
import dev.lazarus.pipeline.control.RunSearches;
import dev.lazarus.pipeline.entity.RunSearch;
import dev.lazarus.pipeline.entity.RunTags;
import dev.lazarus.platform.boundary.JsonBodies;
import dev.lazarus.platform.boundary.Page;
import dev.lazarus.platform.boundary.QueryParams;
import dev.lazarus.platform.control.Problem;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
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
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.io.InputStream;

/**
 * Dead letters over HTTP: lists (newest first, or in triage order), statistics, one in detail with its audit
 * trail, and the investigation workflow's actions (operator only; the actor is the authenticated caller).
 */
@Path("dead-letters")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class DeadLettersResource {

    /** The query parameters of the list and of the causes. */
    static final Set<String> CAUSE_PARAMETERS = Set.of("reason", "status", "runId", "open", "pipeline", "step", "from", "to", "error");
    static final Set<String> LIST_PARAMETERS = Set.of("reason", "status", "runId", "open", "pipeline", "step", "from", "to", "error",
            "cause", "offset", "limit");

    private static boolean openOnly(String open) {
        return Boolean.TRUE.equals(QueryParams.bool("open", open));
    }

    /** A note's request (see JsonBodies#NOTE_REQUEST_BYTES). */
    static final int MAX_BODY = JsonBodies.NOTE_REQUEST_BYTES;

    @Inject
    DeadLetters deadLetters;

    @Inject
    RequeueService requeueService;

    @Inject
    Investigations investigations;

    @Inject
    DeadLetterStats stats;

    @Inject
    Payloads payloads;

    @Inject
    RunSearches searches;

    @Inject
    Recreations recreations;

    @Inject
    Runbooks runbooks;

    /**
     * Newest first, filtered by any of reason, status, run, open, pipeline, step, time window, error text and cause, and by
     * what the operator knows of the run ({@link SearchParams}: {@code key}, {@code label}, {@code payload.<path>}).
     */
    @GET
    public Page<DeadLetterView> list(@QueryParam("reason") String reason, @QueryParam("status") String status,
                                     @QueryParam("runId") String runId, @QueryParam("open") String open,
                                     @QueryParam("pipeline") String pipeline, @QueryParam("step") String step,
                                     @QueryParam("from") String from, @QueryParam("to") String to,
                                     @QueryParam("error") String error, @QueryParam("cause") String cause,
                                     @QueryParam("offset") String offset, @QueryParam("limit") String limit, @Context UriInfo uri) {
        RunSearch search = SearchParams.read(uri, LIST_PARAMETERS);
        DeadLetterFilter filter = Filters.of(reason, status, runId, openOnly(open), pipeline, step, from, to, error, cause);
        int first = QueryParams.offset(offset);
        int size = QueryParams.limit(limit);
        List<DeadLetterSummary> found = deadLetters.list(filter, search, first, size);
        Map<UUID, RunTags> tags = searches.tagsOf(found.stream().map(DeadLetterSummary::runId).filter(Objects::nonNull).distinct().toList());
        return new Page<>(found.stream().map(d -> DeadLetterView.summary(d, d.runId() == null ? RunTags.NONE
                        : tags.getOrDefault(d.runId(), RunTags.NONE))).toList(),
                deadLetters.countFound(filter, search), first, size);
    }

    /**
     * The dead letters of a filter grouped by cause (their fingerprint: exception class and top stack frames), the
     * largest group first: "3 causes, 4 120 dead letters". Each group's {@code cause} is a filter value for the list,
     * the dry run and a bulk requeue.
     */
    @GET
    @Path("causes")
    public DeadLetters.Causes causes(@QueryParam("reason") String reason, @QueryParam("status") String status,
                                     @QueryParam("runId") String runId, @QueryParam("open") String open,
                                     @QueryParam("pipeline") String pipeline, @QueryParam("step") String step,
                                     @QueryParam("from") String from, @QueryParam("to") String to,
                                     @QueryParam("error") String error, @Context UriInfo uri) {
        QueryParams.onlyKnown(uri, CAUSE_PARAMETERS);
        return deadLetters.causes(Filters.of(reason, status, runId, openOnly(open), pipeline, step, from, to, error, null));
    }

    /** Totals per reason and status, the oldest open one, the newest, and the average time to resolution. */
    @GET
    @Path("stats")
    public DeadLetterStats.Stats stats() {
        return stats.stats();
    }

    /**
     * Open dead letters in triage order: the highest triage score first (then the oldest), each with its {@code score} and
     * {@code scoreParts}, the factors it adds up and why ({@link dev.lazarus.deadletter.control.TriageScore}).
     */
    @GET
    @Path("investigation-queue")
    public Page<DeadLetterView> investigationQueue(@QueryParam("reason") String reason, @QueryParam("pipeline") String pipeline,
                                                   @QueryParam("step") String step,
                                                   @QueryParam("offset") String offset, @QueryParam("limit") String limit,
                                                   @Context UriInfo uri) {
        QueryParams.onlyKnown(uri, Set.of("reason", "pipeline", "step", "offset", "limit"));
        DeadLetterFilter filter = Filters.of(reason, null, null, true, pipeline, step, null, null, null, null);
        int first = QueryParams.offset(offset);
        int size = QueryParams.limit(limit);
        return new Page<>(deadLetters.investigationQueue(filter, first, size).stream().map(DeadLetterView::triaged).toList(),
                deadLetters.count(filter), first, size);
    }

    @GET
    @Path("{id}")
    public DeadLetterView get(@PathParam("id") long id) {
        return deadLetters.find(id).map(d -> DeadLetterView.detail(d, deadLetters.trail(id, DeadLetters.TRAIL_SHOWN),
                d.runId() == null ? RunTags.NONE : searches.tagsOf(d.runId()),
                runbooks.of(d.reason(), d.pipeline(), d.stepName()))).orElseThrow(() -> Problem.notFound("no dead letter " + id));
    }

    /** Needs the operator role (enforced by the service); the operator is the authenticated caller. */
    /**
     * Requeues it. With a body {@code {"payload": {...}, "note": "why"}} the run's payload is replaced first (both
     * kept in the audit trail): fix the input, then let the step try again.
     */
    @POST
    @Path("{id}/requeue")
    public DeadLetterView requeue(@PathParam("id") long id, InputStream body) {
        JsonObject request = fixRequest(body, "{\"payload\": {...}, \"note\": \"why\"} (or no body)");
        if (request.isEmpty()) {
            requeueService.requeue(id);
        } else {
            requireOnly(request, "payload", "note");
            requeueService.fixAndContinue(id, RequeueService.Fix.EDIT_PAYLOAD, object(request, "payload"), JsonBodies.optionalString(request, "note"));
        }
        return get(id);
    }

    /**
     * Finishes the stopped step with an output the operator supplies, {@code {"output": {...}, "note": "why"}}: the run
     * goes on at the next step with it as its payload (or completes).
     */
    @POST
    @Path("{id}/complete-step")
    public DeadLetterView completeStep(@PathParam("id") long id, InputStream body) {
        JsonObject request = fixRequest(body, "{\"output\": {...}, \"note\": \"why\"}");
        requireOnly(request, "output", "note");
        requeueService.fixAndContinue(id, RequeueService.Fix.COMPLETE_STEP, object(request, "output"), JsonBodies.optionalString(request, "note"));
        return get(id);
    }

    /** Skips the stopped step, if its pipeline declares it skippable: {@code {"note": "why"}}. */
    @POST
    @Path("{id}/skip-step")
    public DeadLetterView skipStep(@PathParam("id") long id, InputStream body) {
        JsonObject request = fixRequest(body, "{\"note\": \"why\"}");
        requireOnly(request, "note");
        requeueService.fixAndContinue(id, RequeueService.Fix.SKIP_STEP, null, JsonBodies.optionalString(request, "note"));
        return get(id);
    }

    /**
     * Recreate: a new run of the dead letter's run's pipeline, {@code {"payload": {...}, "resolve": true}} (both
     * optional: the run's payload, and the dead letter resolved "recreated as run ..."); see {@code Recreations}. 201
     * with the new run's location (200 and the same run for a retry with the first request's {@code Idempotency-Key});
     * 404 for no such dead letter, 409 if its run is live or it has none; 400 for a body
     * that is not acceptable (nothing is stored).
     */
    @POST
    @Path("{id}/recreate")
    public Response recreate(@PathParam("id") long id, InputStream body, @HeaderParam(Recreate.IDEMPOTENCY_KEY) String key,
                             @Context UriInfo uri) {
        String submissionKey = Recreate.key(key);
        Recreate.Request request = Recreate.read(body, payloads);
        return Recreate.created(recreations.fromDeadLetter(id, request.payload(), request.resolve(), submissionKey), uri);
    }

    private JsonObject fixRequest(InputStream body, String expected) {
        return JsonBodies.readOptionalObject(body, payloads.requestBytes() + MAX_BODY, expected);
    }

    private static void requireOnly(JsonObject request, String... names) {
        JsonBodies.requireOnly(request, names);
    }

    /** The field as JSON text (null if absent); the service checks it is an object within the payload limit. */
    private static String object(JsonObject request, String name) {
        return request.containsKey(name) ? request.get(name).toString() : null;
    }

    /** Takes it into investigation; body optional: {@code {"note": "..."}}. */
    @POST
    @Path("{id}/investigate")
    public DeadLetterView investigate(@PathParam("id") long id, InputStream body) {
        investigations.startInvestigation(id, note(body));
        return get(id);
    }

    /** Adds a note: {@code {"note": "..."}}. */
    @POST
    @Path("{id}/notes")
    public DeadLetterView addNote(@PathParam("id") long id, InputStream body) {
        investigations.addNote(id, note(body));
        return get(id);
    }

    /**
     * Closes it as resolved by hand: {@code {"note": "what was done", "rootCause": "BAD_DATA"}}; {@code rootCause} is
     * optional, one of {@code CODE_DEFECT}, {@code BAD_DATA}, {@code DEPENDENCY}, {@code CONFIGURATION}, {@code OTHER}.
     */
    @POST
    @Path("{id}/resolve")
    public DeadLetterView resolve(@PathParam("id") long id, InputStream body) {
        JsonObject request = JsonBodies.readOptionalObject(body, MAX_BODY, "{\"note\": \"what was done\", \"rootCause\": \"BAD_DATA\"}");
        requireOnly(request, "note", "rootCause");
        investigations.resolve(id, JsonBodies.optionalString(request, "note"), JsonBodies.optionalString(request, "rootCause"));
        return get(id);
    }

    /** Closes it as not worth bringing back: {@code {"note": "why"}}. The evidence is kept. */
    @POST
    @Path("{id}/discard")
    public DeadLetterView discard(@PathParam("id") long id, InputStream body) {
        investigations.discard(id, note(body));
        return get(id);
    }

    /**
     * The body's note, if any: the service checks it (required, its limit) as it does for the admin pages. A field it
     * does not know is refused, as every action refuses one (who acts is never the body's to say, for instance).
     */
    private static String note(InputStream body) {
        return JsonBodies.note(body);
    }
}
