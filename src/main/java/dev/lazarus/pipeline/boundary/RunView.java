package dev.lazarus.pipeline.boundary;

import dev.lazarus.pipeline.control.RunSummary;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.RunState;
import dev.lazarus.pipeline.entity.RunTags;
import dev.lazarus.pipeline.entity.StepExecution;
import dev.lazarus.platform.control.Jsonp;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A run as the API shows it: its state, its step executions and, if it has one, its latest dead letter; {@code traceId}
 * is the trace its spans belong to (look it up in the tracing backend); {@code key} and {@code labels} are what its
 * submitter named it by (null and empty if nothing).
 */
public record RunView(UUID id, String pipeline, String state, boolean deadLettered, String currentStep, long generation,
                      int requeueCount, Instant createdAt, Instant updatedAt, Instant heartbeatAt, Instant finishedAt,
                      String traceId, JsonValue payload, List<StepView> steps, JsonObject deadLetter, String key,
                      List<String> labels) {

    public static RunView summary(Run run) {
        return summary(RunSummary.of(run), RunTags.NONE);
    }

    public static RunView summary(Run run, RunTags tags) {
        return summary(RunSummary.of(run), tags);
    }

    /** As a list shows it, with its business key and labels ({@code tags}; {@link RunTags#NONE} for none). */
    public static RunView summary(RunSummary run, RunTags tags) {
        return new RunView(run.id(), run.pipeline(), run.state().name(), run.state() == RunState.DEAD_LETTERED,
                run.currentStep(), run.generation(), run.requeueCount(), run.createdAt(), run.updatedAt(),
                run.heartbeatAt(), run.finishedAt(), run.traceId(), null, null, null, tags.key(), tags.labels());
    }

    /** In full: its payload (as the JSON it is, or as text if it cannot be read as JSON), its steps, its latest dead letter. */
    public static RunView of(Run run, List<StepExecution> steps, JsonObject deadLetter, RunTags tags) {
        return new RunView(run.id(), run.pipeline(), run.state().name(), run.state() == RunState.DEAD_LETTERED,
                run.currentStep(), run.generation(), run.requeueCount(), run.createdAt(), run.updatedAt(),
                run.heartbeatAt(), run.finishedAt(), run.traceId(), Jsonp.valueOf(run.payload()),
                steps.stream().map(StepView::of).toList(), deadLetter, tags.key(), tags.labels());
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
