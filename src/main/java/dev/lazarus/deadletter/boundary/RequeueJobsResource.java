package dev.lazarus.deadletter.boundary;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.deadletter.control.RequeueJobs;
import dev.lazarus.deadletter.entity.DeadLetterFilter;
import dev.lazarus.deadletter.entity.RequeueJob;
import dev.lazarus.platform.boundary.JsonBodies;
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
import java.util.List;
import java.util.TreeSet;

/**
 * Bulk requeue over HTTP: {@code GET /api/requeue-jobs/dry-run?...} counts what a filter would bring back;
 * {@code POST /api/requeue-jobs} {@code {"filter": {...}, "ratePerSecond": 50}} starts a job (202 with its
 * Location); {@code GET /api/requeue-jobs/{id}} follows its progress; {@code POST .../cancel} stops it.
 */
@Path("requeue-jobs")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class RequeueJobsResource {

    @Inject
    RequeueJobs jobs;

    /** How many open dead letters a job of this filter would requeue; the same names as a job's filter, nothing else. */
    @GET
    @Path("dry-run")
    public JsonObject dryRun(@QueryParam("reason") String reason, @QueryParam("status") String status,
                             @QueryParam("runId") String runId, @QueryParam("pipeline") String pipeline,
                             @QueryParam("step") String step, @QueryParam("from") String from, @QueryParam("to") String to,
                             @QueryParam("error") String error, @QueryParam("cause") String cause, @Context UriInfo uri) {
        Filters.requireKnown(uri.getQueryParameters().keySet(), "query parameter");
        DeadLetterFilter filter = Filters.of(reason, status, runId, true, pipeline, step, from, to, error, cause);
        return JSON.createObjectBuilder().add("matching", jobs.dryRun(filter)).add("filter", RequeueJobView.filterOf(filter)).build();
    }

    @POST
    public Response start(InputStream body, @Context UriInfo uri) {
        JsonObject request = JsonBodies.readOptionalObject(body, 16 * 1024, "{\"filter\": {...}, \"ratePerSecond\": 50}");
        List<String> unknown = request.keySet().stream().filter(k -> !k.equals("filter") && !k.equals("ratePerSecond")).sorted().toList();
        if (!unknown.isEmpty()) {
            throw Problem.badRequest("unknown field(s) " + unknown + "; a requeue job takes {\"filter\": {...}, \"ratePerSecond\": 50}");
        }
        JsonValue filter = request.getOrDefault("filter", JsonValue.EMPTY_JSON_OBJECT);
        if (filter.getValueType() != JsonValue.ValueType.OBJECT) {
            throw Problem.badRequest("'filter' must be an object with any of " + new TreeSet<>(Filters.REQUEUE_FILTER));
        }
        JsonValue rate = request.getOrDefault("ratePerSecond", JSON.createValue(0));
        // the range is the service's rule; here only that it is a number that fits one
        if (!(rate instanceof JsonNumber number) || !number.isIntegral()
                || number.bigDecimalValue().abs().compareTo(java.math.BigDecimal.valueOf(Integer.MAX_VALUE)) > 0) {
            throw Problem.badRequest(RequeueJobs.RATE_RULE);
        }
        RequeueJob job = jobs.start(Filters.of(filter.asJsonObject()), number.intValue());
        return Response.accepted(RequeueJobView.of(job))
                .location(uri.getAbsolutePathBuilder().path(String.valueOf(job.id())).build())
                .build();
    }

    @GET
    public List<RequeueJobView> recent() {
        return jobs.recent(50).stream().map(RequeueJobView::of).toList();
    }

    @GET
    @Path("{id}")
    public RequeueJobView get(@PathParam("id") long id) {
        return jobs.find(id).map(RequeueJobView::of).orElseThrow(() -> Problem.notFound("no requeue job " + id));
    }

    @POST
    @Path("{id}/cancel")
    public RequeueJobView cancel(@PathParam("id") long id) {
        return RequeueJobView.of(jobs.cancel(id));
    }
}
