package dev.lazarus.outage.boundary;

import dev.lazarus.outage.control.StepOverview;
import dev.lazarus.outage.control.StepStates;
import dev.lazarus.pipeline.control.StepControls;
import dev.lazarus.pipeline.control.Pipelines;
import dev.lazarus.pipeline.entity.StepControl;
import dev.lazarus.pipeline.entity.StepControlEvent;
import dev.lazarus.platform.boundary.JsonBodies;
import dev.lazarus.platform.boundary.QueryParams;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;
import java.io.InputStream;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * The steps' states over HTTP: {@code GET /api/steps} (viewer) lists every step with its state, who changed it when and
 * why, the cause of a hold, and its queue's figures ({@link StepOverview.Step}); {@code POST /api/steps/{pipeline}/{step}/pause}
 * with {@code {"note": "why"}} and {@code .../resume} (operator) pause and resume it by hand.
 */
@Path("steps")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class StepsResource {

    @Inject
    StepControls controls;

    @Inject
    StepStates states;

    @Inject
    StepOverview overview;

    @Inject
    Pipelines pipelines;

    private static final int HISTORY = 100;

    @GET
    public Steps list(@Context UriInfo uri) {
        QueryParams.onlyKnown(uri, Set.of()); // every step, always: nothing to filter or page
        // read afresh: what an operator asks after a change must show it, not what this node read 2 s ago
        return new Steps(overview.all());
    }

    @POST
    @Path("{pipeline}/{step}/pause")
    public StepOverview.Step pause(@PathParam("pipeline") String pipeline, @PathParam("step") String step, InputStream body) {
        StepControl changed = controls.pause(pipeline, step, JsonBodies.note(body));
        states.refresh(); // this node obeys at once
        return overview.of(pipelines.step(pipeline, step).orElseThrow(), changed);
    }

    @POST
    @Path("{pipeline}/{step}/resume")
    public StepOverview.Step resume(@PathParam("pipeline") String pipeline, @PathParam("step") String step, InputStream body) {
        StepControl changed = controls.resume(pipeline, step, JsonBodies.note(body));
        states.refresh();
        return overview.of(pipelines.step(pipeline, step).orElseThrow(), changed);
    }

    /** A step's changes, newest first: who paused or resumed it and why, when Lazarus held it and for what, each probe. */
    @GET
    @Path("{pipeline}/{step}/history")
    public History history(@PathParam("pipeline") String pipeline, @PathParam("step") String step, @Context UriInfo uri) {
        QueryParams.onlyKnown(uri, Set.of());
        return new History(controls.history(controls.step(pipeline, step), HISTORY).stream().map(Change::of).toList());
    }

    public record Steps(List<StepOverview.Step> steps) {
    }

    /** The newest {@value #HISTORY} changes of a step. */
    public record History(List<Change> changes) {
    }

    /** One change of a step's state, or a probe of a held step. */
    public record Change(Instant at, String actor, String action, String from, String to, String note, String cause, String detail) {

        static Change of(StepControlEvent event) {
            return new Change(event.at(), event.actor(), event.action(), name(event.fromState()), name(event.toState()), event.note(),
                    event.causeFingerprint(), event.detail());
        }

        private static String name(StepControl.State state) {
            return state == null ? null : state.name();
        }
    }
}
