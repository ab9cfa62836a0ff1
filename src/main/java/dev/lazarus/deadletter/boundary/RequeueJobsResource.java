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
import jakarta.json.JsonObject;
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
import java.util.Set;

/**
 * Bulk requeue over HTTP, as it was before bulk jobs took other actions: the requeue action of {@link BulkJobsResource}.
 * {@code GET /api/requeue-jobs/dry-run?...} counts what a filter would bring back; {@code POST /api/requeue-jobs}
 * {@code {"filter": {...}, "ratePerSecond": 50}} starts a job (202 with its Location); {@code GET /api/requeue-jobs/{id}}
 * follows its progress; {@code POST .../cancel} stops it. It shows requeue jobs only; every job is in
 * {@code /api/bulk-jobs} too.
 */
@Path("requeue-jobs")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class RequeueJobsResource {

    @Inject
    BulkJobs jobs;

    /** How many open dead letters a job of this filter would requeue; the same names as a job's filter, nothing else. */
    @GET
    @Path("dry-run")
    public JsonObject dryRun(@QueryParam("reason") String reason, @QueryParam("status") String status,
                             @QueryParam("runId") String runId, @QueryParam("pipeline") String pipeline,
                             @QueryParam("step") String step, @QueryParam("from") String from, @QueryParam("to") String to,
                             @QueryParam("error") String error, @QueryParam("cause") String cause, @Context UriInfo uri) {
        QueryParams.noneRepeated(uri);
        Filters.requireKnown(uri.getQueryParameters().keySet(), "query parameter");
        DeadLetterFilter filter = Filters.of(reason, status, runId, true, pipeline, step, from, to, error, cause);
        return JSON.createObjectBuilder().add("matching", jobs.dryRun(BulkJob.Action.REQUEUE, filter))
                .add("filter", BulkJobView.filterOf(filter)).build();
    }

    @POST
    public Response start(InputStream body, @Context UriInfo uri) {
        JsonObject request = JsonBodies.readOptionalObject(body, 16 * 1024, "{\"filter\": {...}, \"ratePerSecond\": 50}");
        List<String> unknown = request.keySet().stream().filter(k -> !k.equals("filter") && !k.equals("ratePerSecond")).sorted().toList();
        if (!unknown.isEmpty()) {
            throw Problem.badRequest("unknown field(s) " + unknown + "; a requeue job takes {\"filter\": {...}, \"ratePerSecond\": 50}"
                    + (unknown.contains("action") || unknown.contains("note") ? " (POST /api/bulk-jobs takes an action and a note)" : ""));
        }
        return BulkJobsResource.accepted(jobs.start(BulkJob.Action.REQUEUE, BulkJobsResource.filter(request), BulkJobsResource.rate(request), null),
                uri);
    }

    @GET
    public List<BulkJobView> recent(@Context UriInfo uri) {
        QueryParams.onlyKnown(uri, Set.of()); // the newest 50: nothing to filter or page
        return jobs.recent(BulkJob.Action.REQUEUE, 50).stream().map(BulkJobView::of).toList();
    }

    @GET
    @Path("{id}")
    public BulkJobView get(@PathParam("id") long id) {
        return BulkJobView.of(requeueJob(id));
    }

    @POST
    @Path("{id}/cancel")
    public BulkJobView cancel(@PathParam("id") long id) {
        return BulkJobView.of(jobs.cancel(requeueJob(id).id()));
    }

    /** A requeue job; another action's job is not one (it is at {@code /api/bulk-jobs/{id}}). */
    private BulkJob requeueJob(long id) {
        return jobs.find(id).filter(job -> job.action() == BulkJob.Action.REQUEUE)
                .orElseThrow(() -> Problem.notFound("no requeue job " + id + " (every bulk job, of any action, is at /api/bulk-jobs/" + id + ")"));
    }
}
