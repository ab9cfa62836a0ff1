package dev.lazarus.sweep.boundary;

import dev.lazarus.platform.boundary.Page;
import dev.lazarus.platform.boundary.QueryParams;
import dev.lazarus.platform.control.Problem;
import dev.lazarus.sweep.control.LiveRuns;
import dev.lazarus.sweep.control.StalenessRules.Health;
import dev.lazarus.sweep.control.Sweeps;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Live runs by health ({@code GET /api/staleness}), and a sweep on demand ({@code POST /api/staleness/sweep}). */
@Path("staleness")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class StalenessResource {

    @Inject
    LiveRuns liveRuns;

    @Inject
    StaleRunSweeper sweeper;

    @Inject
    Clock clock;

    @GET
    public StalenessPage staleness(@QueryParam("health") String health, @QueryParam("pipeline") String pipeline,
                                   @QueryParam("offset") String offset, @QueryParam("limit") String limit, @Context UriInfo uri) {
        QueryParams.onlyKnown(uri, Set.of("health", "pipeline", "offset", "limit"));
        StalenessFilter filter = StalenessFilter.of(health, pipeline);
        int first = QueryParams.offset(offset);
        int size = QueryParams.limit(limit);
        LiveRuns.View view = liveRuns.view(clock.instant(), filter.pipeline(), filter.health(), first, size);
        return new StalenessPage(view.items(), view.total(), first, size, view.counts(), view.truncated());
    }

    /**
     * Runs one sweep now, on this node (operator only); returns what it did. Through the node's one-sweep guard, as the
     * timer's: a 409 if a sweep is running here already (it does the same work; ask again once it is done).
     */
    @POST
    @Path("sweep")
    public Sweeps.SweepReport sweepNow() {
        return sweeper.sweepNow().orElseThrow(() -> Problem.conflict("a sweep is already running on this node;"
                + " ask again when it has finished"));
    }

    /**
     * @param counts    live runs per health, over everything assessed
     * @param truncated more live runs exist than the view assesses ({@value LiveRuns#MAX_ASSESSED})
     */
    public record StalenessPage(List<LiveRuns.Assessment> items, long total, int offset, int limit,
                                Map<Health, Long> counts, boolean truncated) {
    }
}
