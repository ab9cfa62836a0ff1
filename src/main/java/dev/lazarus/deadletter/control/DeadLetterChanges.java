package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.deadletter.entity.DeadLetterStatus;
import dev.lazarus.events.control.Events;
import dev.lazarus.events.entity.Event;
import dev.lazarus.events.entity.EventType;
import dev.lazarus.pipeline.control.Pipelines;
import dev.lazarus.platform.control.AfterCommit;
import dev.lazarus.platform.control.EventLog;
import dev.lazarus.platform.control.Metrics;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.persistence.PostPersist;
import jakarta.persistence.PostUpdate;
import java.util.List;

/**
 * Reports every dead letter recorded and every change of its status, whichever path made it (a consumer, the
 * sweeper, the reconciler, a requeue, an operator): one line of the structured log ({@link EventLog}, event
 * {@code DEAD_LETTER}) and the dead-letter and requeue counters, once the change commits, and one event
 * ({@link Events}: dead-lettered, stopped, requeued, resolved or discarded) written in the change's own transaction. A
 * JPA entity listener, so a detection path cannot record a dead letter without it being counted and told.
 */
@Dependent // also called directly by DeadLetterRows, which writes a sweep's dead letters without Hibernate
public class DeadLetterChanges {

    private static final AttributeKey<String> REASON = AttributeKey.stringKey("lazarus.dead_letter.reason");
    private static final AttributeKey<Long> DEAD_LETTER_ID = AttributeKey.longKey("lazarus.dead_letter.id");

    @Inject
    AfterCommit afterCommit;

    @Inject
    Metrics metrics;

    @Inject
    Pipelines pipelines;

    @Inject
    Events events;

    @PostPersist
    void recorded(DeadLetter deadLetter) {
        reportRecorded(deadLetter);
        events.record(event(deadLetter));
    }

    /** What {@link #recorded} does for each of a batch written at once, with their events in one statement. */
    void recordedAll(List<DeadLetter> deadLetters) {
        deadLetters.forEach(this::reportRecorded);
        events.record(deadLetters.stream().map(DeadLetterChanges::event).toList());
    }

    private void reportRecorded(DeadLetter deadLetter) {
        deadLetter.statusReported();
        // a message sent by hand may name any pipeline and step: only the deployment's own become labels
        boolean known = deadLetter.pipeline() != null && deadLetter.stepName() != null
                && pipelines.step(deadLetter.pipeline(), deadLetter.stepName()).isPresent();
        String pipeline = known ? deadLetter.pipeline() : Metrics.UNKNOWN;
        String step = known ? deadLetter.stepName() : Metrics.UNKNOWN;
        EventLog.Fields event = fields(deadLetter).with("errorClass", deadLetter.exceptionClass()).with("attempts", deadLetter.attempts());
        String text = "dead letter " + deadLetter.id() + " " + deadLetter.reason() + (deadLetter.runId() != null ? " for run "
                + deadLetter.runId() + " at step " + deadLetter.stepName() : " for a message of no run") + " on " + deadLetter.queue();
        // the span of the delivery (or request) that recorded it, if any, says so in the run's trace
        Span.current().addEvent("lazarus.dead_letter", Attributes.of(REASON, deadLetter.reason().name(), DEAD_LETTER_ID, deadLetter.id()));
        afterCommit.run(() -> {
            event.log(text);
            metrics.deadLetterCreated(deadLetter.reason().name(), pipeline, step);
        });
    }

    @PostUpdate
    void updated(DeadLetter deadLetter) {
        DeadLetterStatus before = deadLetter.reportedStatus();
        DeadLetterStatus now = deadLetter.status();
        if (before == now) {
            return; // a note, a check of its DLQ message: not a change of status
        }
        deadLetter.statusReported();
        String method = deadLetter.requeueMethod();
        String rootCause = deadLetter.resolvedRootCause() == null ? Metrics.NO_ROOT_CAUSE : deadLetter.resolvedRootCause().name();
        EventLog.Fields event = fields(deadLetter).with("previousStatus", before).with("by", deadLetter.closedBy())
                .with("requeueMethod", now == DeadLetterStatus.REQUEUED ? method : null);
        String text = "dead letter " + deadLetter.id() + " " + before + " -> " + now;
        EventType type = switch (now) {
            case REQUEUED -> EventType.REQUEUED;
            case RESOLVED_MANUALLY -> EventType.RESOLVED;
            case DISCARDED -> EventType.DISCARDED;
            default -> null; // under investigation: a step of the workflow, not a change anyone is told of
        };
        if (type != null) {
            events.record(event(deadLetter, type, now == DeadLetterStatus.REQUEUED ? deadLetter.requeuedBy() : deadLetter.closedBy(),
                    deadLetter.updatedAt()));
        }
        afterCommit.run(() -> {
            event.log(text);
            if (now == DeadLetterStatus.REQUEUED) {
                metrics.requeued(method);
            } else if (now == DeadLetterStatus.RESOLVED_MANUALLY) {
                metrics.deadLetterResolved(rootCause);
            }
        });
    }

    /** A dead letter recorded: an operator's stop (reason MANUAL) or a detector's dead letter, told by whoever made it. */
    private static Event event(DeadLetter deadLetter) {
        boolean stopped = deadLetter.reason() == DeadLetterReason.MANUAL;
        String who = deadLetter.events().isEmpty() ? deadLetter.detectedBy() : deadLetter.events().get(0).actor();
        return event(deadLetter, stopped ? EventType.STOPPED : EventType.DEAD_LETTERED, who, deadLetter.createdAt());
    }

    private static Event event(DeadLetter deadLetter, EventType type, String who, java.time.Instant at) {
        return new Event(type, at != null ? at : java.time.Instant.now(), deadLetter.runId(), deadLetter.pipeline(), deadLetter.stepName(),
                deadLetter.reason().name(), new Event.Cause(deadLetter.fingerprint(), deadLetter.exceptionClass(), deadLetter.errorMessage()),
                deadLetter.id(), who);
    }

    private static EventLog.Fields fields(DeadLetter deadLetter) {
        return EventLog.event("DEAD_LETTER")
                .with("deadLetterId", deadLetter.id())
                .with("reason", deadLetter.reason())
                .with("status", deadLetter.status())
                .with("runId", deadLetter.runId())
                .with("pipeline", deadLetter.pipeline())
                .with("step", deadLetter.stepName())
                .with("generation", deadLetter.generation())
                .with("queue", deadLetter.queue())
                .with("traceId", deadLetter.traceId());
    }
}
