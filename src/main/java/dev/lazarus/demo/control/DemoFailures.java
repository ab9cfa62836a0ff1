package dev.lazarus.demo.control;

import dev.lazarus.pipeline.control.PermanentStepFailure;
import dev.lazarus.pipeline.control.StepContext;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.time.Duration;

/**
 * Failures a demo payload can ask for, so that every path through Lazarus can be shown and tested:
 * <pre>{"failures": {"parse": {"mode": "transient", "succeedOnAttempt": 3}}}</pre>
 * Modes: {@code transient} (fails until attempt {@code succeedOnAttempt}), {@code always} (every attempt, so
 * retries run out; {@code message} replaces the error text), {@code until-requeued} (fails until an operator requeues the run: the "cause fixed"
 * scenario), {@code permanent} (a declared non-retryable failure), {@code hang} (sleeps {@code seconds},
 * at most 600, without a heartbeat).
 */
final class DemoFailures {

    private static final long MAX_HANG_SECONDS = 600;

    private DemoFailures() {
    }

    static void apply(StepContext context) throws PermanentStepFailure, InterruptedException {
        JsonValue failures = context.payload().get("failures");
        if (failures == null || failures.getValueType() != JsonValue.ValueType.OBJECT) {
            return;
        }
        JsonValue spec = failures.asJsonObject().get(context.step());
        if (spec == null || spec.getValueType() != JsonValue.ValueType.OBJECT) {
            return;
        }
        JsonObject failure = spec.asJsonObject();
        String mode = failure.getString("mode", "");
        switch (mode) {
            case "transient" -> {
                int succeedOn = failure.getInt("succeedOnAttempt", 2);
                if (context.attempt() < succeedOn) {
                    throw new IllegalStateException("simulated transient failure in " + context.step()
                            + " (attempt " + context.attempt() + ", succeeds on attempt " + succeedOn + ")");
                }
            }
            case "always" -> throw new IllegalStateException(failure.getString("message", "simulated failure in " + context.step()
                    + " on every attempt") + " (attempt " + context.attempt() + " of " + context.maxAttempts() + ")");
            case "until-requeued" -> {
                if (context.requeueCount() == 0) {
                    // a downstream system away: another exception than the other modes', so it is another cause
                    throw new UncheckedIOException(new ConnectException("simulated outage in " + context.step()
                            + ": fails until an operator requeues the run"));
                }
            }
            case "permanent" -> throw new PermanentStepFailure("simulated permanent failure in " + context.step()
                    + ": the document is not in a supported format");
            case "hang" -> Thread.sleep(Duration.ofSeconds(Math.min(MAX_HANG_SECONDS, failure.getInt("seconds", 60))).toMillis());
            default -> { /* unknown modes are ignored: the demo never fails by accident */ }
        }
    }
}
