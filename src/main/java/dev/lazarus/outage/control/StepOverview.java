package dev.lazarus.outage.control;

import dev.lazarus.pipeline.control.StepControls;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.pipeline.entity.StepControl;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.bind.annotation.JsonbNillable;
import jakarta.json.bind.annotation.JsonbTypeSerializer;
import jakarta.json.bind.serializer.JsonbSerializer;
import jakarta.json.bind.serializer.SerializationContext;
import jakarta.json.stream.JsonGenerator;
import java.time.Instant;
import java.util.List;

/**
 * Every step as an operator looks at it (the steps' API and page): its state as the database has it now, who changed it
 * when and why, the cause of a hold, and its queue's figures as this node last read them.
 */
@ApplicationScoped
public class StepOverview {

    @Inject
    StepControls controls;

    @Inject
    QueueFigures figures;

    @Inject
    HoldDetector detector;

    public List<Step> all() {
        return controls.all().entrySet().stream().map(each -> of(each.getKey(), each.getValue())).toList();
    }

    public Step of(StepDefinition step, StepControl control) {
        QueueFigures.Figures queue = figures.of(step);
        Cause cause = control.causeFingerprint() == null ? null
                : new Cause(control.causeFingerprint(), control.causeException(), control.causeExample());
        return new Step(step.pipeline(), step.name(), step.queue(), control.state().name(), control.since(), control.changedBy(),
                control.note(), cause, known(queue.waiting()), known(queue.inFlight()), known(queue.consumers()),
                known(queue.dlqDepth()), queue.pausedOn() < 0 ? null : queue.pausedOn() > 0,
                detector.failureRate(step).map(rate -> Math.round(rate * 1000) / 1000.0).orElse(null), control.nextProbeAt(),
                control.probesFailed());
    }

    private static Long known(long figure) {
        return figure < 0 ? null : figure;
    }

    /** What a hold's failures have in common: their fingerprint (as a dead letter of theirs would have it) and an example. */
    public record Cause(String fingerprint, String exceptionClass, String example) {
    }

    /**
     * Writes a cause, or {@code null} where there is none. Yasson (3.0) leaves a null object-valued property out even
     * under {@code @JsonbNillable}, and scripts read {@code cause} by name, so the step names it itself.
     */
    public static class CauseOrNull implements JsonbSerializer<Cause> {
        @Override
        public void serialize(Cause cause, JsonGenerator json, SerializationContext context) {
            if (cause == null) {
                json.writeNull();
                return;
            }
            json.writeStartObject();
            writeOrNull(json, "fingerprint", cause.fingerprint());
            writeOrNull(json, "exceptionClass", cause.exceptionClass());
            writeOrNull(json, "example", cause.example());
            json.writeEnd();
        }

        private static void writeOrNull(JsonGenerator json, String name, String value) {
            if (value == null) {
                json.writeNull(name);
            } else {
                json.write(name, value);
            }
        }
    }

    /**
     * One step: {@code waiting} messages in its queue (not being delivered), {@code inFlight} being delivered,
     * {@code consumers}, {@code dlqDepth} (messages in its DLQ), all summed over the brokers and read every 2 s (null if
     * a broker did not answer); {@code queuePaused} whether a broker has the queue paused (as it should be while the step
     * is paused or held; under a running step, paused outside Lazarus: its messages are not delivered); {@code failureRate}
     * the share of this node's deliveries of the step that failed retryably within the hold's window (null if it had none); {@code nextProbeAt} and {@code probesFailed} for a held step.
     */
    @JsonbNillable // every field named, null where there is nothing (yet): scripts read them by name
    public record Step(String pipeline, String step, String queue, String state, Instant since, String by, String note,
                       @JsonbTypeSerializer(CauseOrNull.class) Cause cause, Long waiting, Long inFlight, Long consumers, Long dlqDepth,
                       Boolean queuePaused, Double failureRate, Instant nextProbeAt, int probesFailed) {

        @jakarta.json.bind.annotation.JsonbTransient // a reading of state, not a field of its own
        public boolean isRunning() {
            return "RUNNING".equals(state);
        }

        /**
         * The step runs, and has for longer than a reading of the brokers takes to follow (a step resumed a moment ago
         * may still be read paused), but a broker has its queue paused: outside Lazarus, in the Artemis console, which
         * Lazarus never overrides.
         */
        @jakarta.json.bind.annotation.JsonbTransient
        public boolean isPausedOnTheBroker() {
            return isRunning() && Boolean.TRUE.equals(queuePaused) && (since == null || since.isBefore(Instant.now().minusSeconds(5)));
        }
    }
}
