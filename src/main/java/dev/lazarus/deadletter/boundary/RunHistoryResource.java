package dev.lazarus.deadletter.boundary;

import dev.lazarus.deadletter.control.Recreations;
import dev.lazarus.deadletter.control.RunHistory;
import dev.lazarus.pipeline.boundary.RunView;
import dev.lazarus.platform.control.Problem;
import dev.lazarus.platform.entity.Text;
import dev.lazarus.deadletter.control.DeadLetterSummary;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.UUID;

/**
 * {@code GET /api/runs/{id}/history}: the run's story, as its admin page shows it: each dispatch of a step with where
 * it came from and how it ended, its dead letters, and the timeline of all of it, with the run's trace id.
 */
@Path("runs/{id}/history")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class RunHistoryResource {

    @Inject
    RunHistory history;

    @Inject
    Recreations recreations;

    @GET
    public HistoryView get(@PathParam("id") String id) {
        UUID runId;
        try {
            runId = UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw Problem.notFound("no run " + Text.printable(id, 100) + " (run ids are UUIDs)");
        }
        RunHistory.History found = history.of(runId).orElseThrow(() -> Problem.notFound("no run " + id));
        Recreations.Links links = recreations.links(runId);
        return new HistoryView(RunView.summary(found.run()), found.run().traceId(), found.dispatches(),
                found.deadLetters().stream().map(DeadLetterView::summary).toList(), found.timeline(), links.recreatedFrom(),
                links.recreatedAs());
    }

    /**
     * {@code recreatedFrom}: the run (and dead letter) this one was recreated from, null if it was submitted;
     * {@code recreatedAs}: the runs recreated from this one.
     */
    public record HistoryView(RunView run, String traceId, List<RunHistory.Dispatch> dispatches, List<DeadLetterView> deadLetters,
                              List<RunHistory.Event> timeline, Recreations.Link recreatedFrom, List<Recreations.Link> recreatedAs) {
    }
}
