package dev.lazarus.pipeline.boundary;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.RunState;
import dev.lazarus.pipeline.entity.StepExecution;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A run as the API shows it: its state, its step executions and, if it has one, its latest dead letter; {@code traceId}
 * is the trace its spans belong to (look it up in the tracing backend).
 */
public record RunView(UUID id, String pipeline, String state, boolean deadLettered, String currentStep, long generation,
                      int requeueCount, Instant createdAt, Instant updatedAt, Instant heartbeatAt, Instant finishedAt,
                      String traceId, JsonObject payload, List<StepView> steps, JsonObject deadLetter) {

    public static RunView summary(Run run) {
        return of(run, null, null);
    }

    public static RunView of(Run run, List<StepExecution> steps, JsonObject deadLetter) {
        return new RunView(run.id(), run.pipeline(), run.state().name(), run.state() == RunState.DEAD_LETTERED,
                run.currentStep(), run.generation(), run.requeueCount(), run.createdAt(), run.updatedAt(),
                run.heartbeatAt(), run.finishedAt(), run.traceId(),
                steps == null ? null : JSON.createReader(new StringReader(run.payload())).readObject(),
                steps == null ? null : steps.stream().map(StepView::of).toList(), deadLetter);
    }

    public record StepView(String step, long generation, String queue, String state, int attempts,
                           Instant firstAttemptAt, Instant lastAttemptAt, Instant heartbeatAt, Instant finishedAt,
                           String lastError) {
        static StepView of(StepExecution s) {
            return new StepView(s.stepName(), s.generation(), s.queue(), s.state().name(), s.attempts(),
                    s.firstAttemptAt(), s.lastAttemptAt(), s.heartbeatAt(), s.finishedAt(), s.lastError());
        }
    }
}
