package dev.lazarus.deadletter.boundary;

import dev.lazarus.deadletter.control.DeadLetterSummary;
import dev.lazarus.deadletter.control.DeadLetters;
import dev.lazarus.deadletter.control.Runbooks;
import dev.lazarus.deadletter.control.TriageScore;
import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.deadletter.entity.DeadLetterEvent;
import dev.lazarus.pipeline.entity.RunTags;
import dev.lazarus.platform.control.Jsonp;
import jakarta.json.JsonValue;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A dead letter as the API shows it. Lists leave out the stack trace, the run snapshot, the raw body and the
 * audit trail; the detail has them all. The run snapshot is the JSON object it is, not JSON inside a string.
 * {@code cause} is the dead letter's fingerprint (the filter value of its group of causes); {@code key} and {@code labels}
 * are its run's (what the run was submitted with). {@code rootCause} is why it happened as its resolve recorded it (not
 * its exception's root cause, which its group of causes shows); {@code runbook} is in the detail only, {@code score} and
 * {@code scoreParts} in the investigation queue only.
 */
public record DeadLetterView(long id, String reason, String reasonLabel, String severity, int priority, String status,
                             UUID runId, String pipeline, String step, String queue, String deadLetterQueue,
                             boolean dlqMessageMissing, Instant dlqCheckedAt,
                             String messageId, Long generation, int attempts, String exceptionClass,
                             String errorMessage, String stackTrace, JsonValue runSnapshot, String messageBody,
                             String detectedBy, Instant createdAt, Instant updatedAt, String requeuedBy,
                             Instant requeuedAt, String requeueMethod, String closedBy, Instant closedAt, String traceId, String cause,
                             List<EventView> history, Long historyTotal, String key, List<String> labels, String rootCause,
                             Runbooks.Shown runbook, Integer score, List<TriageScore.Part> scoreParts) {

    public static DeadLetterView summary(DeadLetterSummary d) {
        return summary(d, RunTags.NONE);
    }

    /** As a list shows it, with its run's business key and labels. */
    public static DeadLetterView summary(DeadLetterSummary d, RunTags tags) {
        return new DeadLetterView(d.id(), d.reason().name(), d.reason().label(), d.reason().severity().name(),
                d.reason().priority(), d.status().name(), d.runId(), d.pipeline(), d.stepName(), d.queue(),
                d.deadLetterQueue(), d.dlqMessageMissing(), d.dlqCheckedAt(), d.messageId(), d.generation(), d.attempts(),
                d.exceptionClass(), d.errorMessage(), null, null, null,
                d.detectedBy(), d.createdAt(), d.updatedAt(), d.requeuedBy(), d.requeuedAt(), d.requeueMethod(),
                d.closedBy(), d.closedAt(), d.traceId(), d.fingerprint(), null, null, tags.key(), tags.labels(), null, null, null, null);
    }

    /** An entry of the investigation queue: its summary, its {@code score} and the parts it adds up ({@code scoreParts}). */
    public static DeadLetterView triaged(DeadLetters.Triaged entry) {
        DeadLetterView d = summary(entry.deadLetter());
        return new DeadLetterView(d.id, d.reason, d.reasonLabel, d.severity, d.priority, d.status, d.runId, d.pipeline, d.step, d.queue,
                d.deadLetterQueue, d.dlqMessageMissing, d.dlqCheckedAt, d.messageId, d.generation, d.attempts, d.exceptionClass,
                d.errorMessage, null, null, null, d.detectedBy, d.createdAt, d.updatedAt, d.requeuedBy, d.requeuedAt, d.requeueMethod,
                d.closedBy, d.closedAt, d.traceId, d.cause, null, null, d.key, d.labels, null, null, entry.score().score(),
                entry.score().parts());
    }

    /**
     * In full, with the newest entries of its audit trail ({@code historyTotal}: how many it has in all), the root cause
     * its resolve recorded, if any, and its {@code runbook} (the reason's, and what its pipeline or step adds).
     */
    public static DeadLetterView detail(DeadLetter d, DeadLetters.Trail trail, Runbooks.Shown runbook) {
        return detail(d, trail, RunTags.NONE, runbook);
    }

    /** In full, with its run's business key and labels. */
    public static DeadLetterView detail(DeadLetter d, DeadLetters.Trail trail, RunTags tags, Runbooks.Shown runbook) {
        return new DeadLetterView(d.id(), d.reason().name(), d.reason().label(), d.reason().severity().name(),
                d.reason().priority(), d.status().name(), d.runId(), d.pipeline(), d.stepName(), d.queue(),
                d.deadLetterQueue(), d.dlqMessageMissing(), d.dlqCheckedAt(), d.messageId(), d.generation(), d.attempts(),
                d.exceptionClass(), d.errorMessage(), d.stackTrace(), Jsonp.valueOf(d.runSnapshot()), d.messageBody(),
                d.detectedBy(), d.createdAt(), d.updatedAt(), d.requeuedBy(), d.requeuedAt(), d.requeueMethod(),
                d.closedBy(), d.closedAt(), d.traceId(), d.fingerprint(), trail.entries().stream().map(EventView::of).toList(),
                trail.total(), tags.key(), tags.labels(), d.resolvedRootCause() == null ? null : d.resolvedRootCause().name(), runbook,
                null, null);
    }

    /** One entry of the audit trail; {@code detail} is what a fix by hand changed (a JSON object), if it was one. */
    public record EventView(Instant at, String actor, String action, String fromStatus, String toStatus, String note, JsonValue detail) {
        static EventView of(DeadLetterEvent e) {
            return new EventView(e.at(), e.actor(), e.action().name(),
                    e.fromStatus() == null ? null : e.fromStatus().name(),
                    e.toStatus() == null ? null : e.toStatus().name(), e.note(), Jsonp.valueOf(e.detail()));
        }
    }
}
