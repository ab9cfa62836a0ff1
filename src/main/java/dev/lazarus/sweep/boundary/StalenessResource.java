package dev.lazarus.sweep.boundary;

import dev.lazarus.platform.boundary.Page;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.platform.boundary.QueryParams;
import dev.lazarus.platform.control.Problem;
import dev.lazarus.platform.control.TextInput;
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
import jakarta.ws.rs.core.MediaType;
import java.time.Clock;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

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
                                   @QueryParam("offset") String offset, @QueryParam("limit") String limit,
                                   @jakarta.ws.rs.core.Context jakarta.ws.rs.core.UriInfo uri) {
        QueryParams.onlyKnown(uri, java.util.Set.of("health", "pipeline", "offset", "limit"));
        Health wanted = QueryParams.enumValue(Health.class, "health", health);
        pipeline = TextInput.name("pipeline", pipeline, Run.NAME_LENGTH);
        List<LiveRuns.Assessment> all = liveRuns.assess(clock.instant(), pipeline);
        Map<Health, Long> counts = new EnumMap<>(Health.class);
        for (Health h : Health.values()) {
            counts.put(h, all.stream().filter(a -> a.health() == h).count());
        }
        List<LiveRuns.Assessment> matching = all.stream()
                .filter(a -> wanted == null || a.health() == wanted)
                .sorted((a, b) -> Double.compare(b.ratio(), a.ratio()))
                .toList();
        int first = QueryParams.offset(offset);
        int size = QueryParams.limit(limit);
        int from = Math.min(first, matching.size());
        List<LiveRuns.Assessment> page = matching.subList(from, (int) Math.min((long) from + size, matching.size()));
        return new StalenessPage(page, matching.size(), first, size, counts, all.size() >= LiveRuns.MAX_ASSESSED);
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
