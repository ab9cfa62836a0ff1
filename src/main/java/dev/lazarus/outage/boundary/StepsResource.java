package dev.lazarus.outage.boundary;

import dev.lazarus.outage.control.HoldDetector;
import dev.lazarus.outage.control.QueueFigures;
import dev.lazarus.outage.control.StepStates;
import dev.lazarus.pipeline.control.StepControls;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.pipeline.entity.StepControl;
import dev.lazarus.platform.boundary.JsonBodies;
import dev.lazarus.platform.control.Problem;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.io.InputStream;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The steps' states over HTTP: {@code GET /api/steps} (viewer) lists every step with its state, who changed it when and
 * why, the cause of a hold, and its queue's figures; {@code POST /api/steps/{pipeline}/{step}/pause} with
 * {@code {"note": "why"}} and {@code .../resume} (operator) pause and resume it by hand.
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
    QueueFigures figures;

    @Inject
    HoldDetector detector;

    @Inject
    dev.lazarus.pipeline.control.Pipelines pipelines;

    @GET
    public Steps list() {
        // read afresh: what an operator asks after a change must show it, not what this node read 2 s ago
        Map<StepDefinition, StepControl> now = controls.all();
        return new Steps(now.entrySet().stream().map(each -> view(each.getKey(), each.getValue())).toList());
    }

    @POST
    @Path("{pipeline}/{step}/pause")
    public StepView pause(@PathParam("pipeline") String pipeline, @PathParam("step") String step, InputStream body) {
        StepControl changed = controls.pause(pipeline, step, note(body));
        states.refresh(); // this node obeys at once
        return view(definition(changed), changed);
    }

    @POST
    @Path("{pipeline}/{step}/resume")
    public StepView resume(@PathParam("pipeline") String pipeline, @PathParam("step") String step, InputStream body) {
        StepControl changed = controls.resume(pipeline, step, note(body));
        states.refresh();
        return view(definition(changed), changed);
    }

    private StepDefinition definition(StepControl control) {
        return pipelines.step(control.pipeline(), control.stepName()).orElseThrow();
    }

    private StepView view(StepDefinition step, StepControl control) {
        QueueFigures.Figures queue = figures.of(step);
        Cause cause = control.causeFingerprint() == null ? null
                : new Cause(control.causeFingerprint(), control.causeException(), control.causeExample());
        return new StepView(step.pipeline(), step.name(), step.queue(), control.state().name(), control.since(), control.changedBy(),
                control.note(), cause, known(queue.waiting()), known(queue.inFlight()), known(queue.consumers()),
                known(queue.dlqDepth()), detector.failureRate(step).map(rate -> Math.round(rate * 1000) / 1000.0).orElse(null),
                control.nextProbeAt(), control.probesFailed());
    }

    private static Long known(long figure) {
        return figure < 0 ? null : figure;
    }

    /** The body's note: the service checks it (required to pause, its limit), as for the admin page. */
    private static String note(InputStream body) {
        return JsonBodies.note(body);
    }

    public record Steps(List<StepView> steps) {
    }

    /** What a hold's failures have in common: their fingerprint (as a dead letter of theirs would have it) and an example. */
    public record Cause(String fingerprint, String exceptionClass, String example) {
    }

    /**
     * One step: {@code waiting} messages in its queue (not being delivered), {@code inFlight} being delivered,
     * {@code consumers}, {@code dlqDepth} (messages in its DLQ), all summed over the brokers and read every 2 s (null if
     * a broker did not answer); {@code failureRate} the share of this node's deliveries of the step that failed retryably
     * within the hold's window (null if it had none); {@code nextProbeAt} and {@code probesFailed} for a held step.
     */
    public record StepView(String pipeline, String step, String queue, String state, Instant since, String by, String note,
                           Cause cause, Long waiting, Long inFlight, Long consumers, Long dlqDepth, Double failureRate,
                           Instant nextProbeAt, int probesFailed) {
    }
}
