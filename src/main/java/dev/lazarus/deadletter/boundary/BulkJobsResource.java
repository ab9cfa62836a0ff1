package dev.lazarus.deadletter.boundary;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.deadletter.control.BulkJobs;
import dev.lazarus.deadletter.entity.BulkJob;
import dev.lazarus.deadletter.entity.DeadLetterFilter;
import dev.lazarus.platform.boundary.JsonBodies;
import dev.lazarus.platform.boundary.QueryParams;
import dev.lazarus.platform.control.Problem;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.GET;
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
import java.math.BigDecimal;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Bulk jobs over HTTP: {@code GET /api/bulk-jobs/dry-run?action=discard&...} counts what a job of that action and filter
 * would act on; {@code POST /api/bulk-jobs} {@code {"action": "discard", "filter": {...}, "ratePerSecond": 50, "note":
 * "why"}} starts one (202 with its Location; a resolve may add {@code "rootCause": "DEPENDENCY"}, recorded with each dead letter); {@code GET /api/bulk-jobs/{id}} follows its progress; {@code POST
 * .../cancel} stops it. {@code /api/requeue-jobs} ({@link RequeueJobsResource}) is the same for the requeue action.
 */
@Path("bulk-jobs")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class BulkJobsResource {

    /** A job's request: its filter, and a note ({@link DeadLettersResource#MAX_BODY}). */
    static final int MAX_BODY = 16 * 1024 + DeadLettersResource.MAX_BODY;

    private static final String EXAMPLE = "{\"action\": \"discard\", \"filter\": {...}, \"ratePerSecond\": 50, \"note\": \"why\"}";
    private static final Set<String> FIELDS = Set.of("action", "filter", "ratePerSecond", "note", "rootCause");

    @Inject
    BulkJobs jobs;

    /** How many dead letters a job of this action and filter would act on; {@code action} and a job's filter names, nothing else. */
    @GET
    @Path("dry-run")
    public JsonObject dryRun(@QueryParam("action") String action, @QueryParam("reason") String reason, @QueryParam("status") String status,
                             @QueryParam("runId") String runId, @QueryParam("pipeline") String pipeline,
                             @QueryParam("step") String step, @QueryParam("from") String from, @QueryParam("to") String to,
                             @QueryParam("error") String error, @QueryParam("cause") String cause, @Context UriInfo uri) {
        QueryParams.noneRepeated(uri);
        Filters.requireKnown(uri.getQueryParameters().keySet().stream().filter(name -> !name.equals("action")).toList(), "query parameter");
        BulkJob.Action chosen = action(action);
        DeadLetterFilter filter = Filters.of(reason, status, runId, true, pipeline, step, from, to, error, cause);
        return JSON.createObjectBuilder().add("action", chosen.apiName()).add("matching", jobs.dryRun(chosen, filter))
                .add("filter", BulkJobView.filterOf(filter)).build();
    }

    @POST
    public Response start(InputStream body, @Context UriInfo uri) {
        JsonObject request = JsonBodies.readObject(body, MAX_BODY, EXAMPLE);
        List<String> unknown = request.keySet().stream().filter(name -> !FIELDS.contains(name)).sorted().toList();
        if (!unknown.isEmpty()) {
            throw Problem.badRequest("unknown field(s) " + unknown + "; a bulk job takes " + EXAMPLE);
        }
        BulkJob.Action action = action(JsonBodies.optionalString(request, "action"));
        BulkJob job = jobs.start(action, filter(request), rate(request), JsonBodies.optionalString(request, "note"),
                JsonBodies.optionalString(request, "rootCause"));
        return accepted(job, uri);
    }

    @GET
    public List<BulkJobView> recent(@Context UriInfo uri) {
        QueryParams.onlyKnown(uri, Set.of()); // the newest 50: nothing to filter or page
        return jobs.recent(null, 50).stream().map(BulkJobView::of).toList();
    }

    @GET
    @Path("{id}")
    public BulkJobView get(@PathParam("id") long id) {
        return jobs.find(id).map(BulkJobView::of).orElseThrow(() -> Problem.notFound("no bulk job " + id));
    }

    @POST
    @Path("{id}/cancel")
    public BulkJobView cancel(@PathParam("id") long id) {
        return BulkJobView.of(jobs.cancel(id));
    }

    /** The action a request names: one of the three, as the API spells them; required. */
    private static BulkJob.Action action(String name) {
        if (name == null || name.isEmpty()) {
            throw Problem.badRequest("'action' is required: one of " + BulkJob.Action.names());
        }
        try {
            return BulkJob.Action.named(name);
        } catch (IllegalArgumentException e) {
            throw Problem.badRequest(e.getMessage());
        }
    }

    /** A job request's {@code filter}: an object of a job's filter names (none: every open dead letter). */
    static DeadLetterFilter filter(JsonObject request) {
        JsonValue filter = request.getOrDefault("filter", JsonValue.EMPTY_JSON_OBJECT);
        if (filter.getValueType() != JsonValue.ValueType.OBJECT) {
            throw Problem.badRequest("'filter' must be an object with any of " + new TreeSet<>(Filters.JOB_FILTER));
        }
        return Filters.of(filter.asJsonObject());
    }

    /** A job request's {@code ratePerSecond} (none: 0, as fast as it goes); its range is the service's rule. */
    static int rate(JsonObject request) {
        JsonValue rate = request.getOrDefault("ratePerSecond", JSON.createValue(0));
        // here only that it is a number that fits one
        if (!(rate instanceof JsonNumber number) || !number.isIntegral()
                || number.bigDecimalValue().abs().compareTo(BigDecimal.valueOf(Integer.MAX_VALUE)) > 0) {
            throw Problem.badRequest(BulkJobs.RATE_RULE);
        }
        return number.intValue();
    }

    /** 202, the job, and where to follow it. */
    static Response accepted(BulkJob job, UriInfo uri) {
        return Response.accepted(BulkJobView.of(job)).location(uri.getAbsolutePathBuilder().path(String.valueOf(job.id())).build()).build();
    }
}
