package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.deadletter.entity.DeadLetterStatus;
import java.time.Instant;
import java.util.UUID;

/**
 * A dead letter as a list shows it: its summary columns, read by the query itself, without the stack trace, the run
 * snapshot, the message body or the audit trail (together up to a quarter of a megabyte per dead letter). A list of
 * 500 of them costs what it shows, and a page that keeps one keeps little.
 *
 * @param requeueable what {@link dev.lazarus.deadletter.entity.DeadLetter#canBeRequeued()} says, evaluated by the query
 *                    with the same condition the bulk requeue selects with
 */
public record DeadLetterSummary(long id, DeadLetterReason reason, DeadLetterStatus status, UUID runId, String pipeline,
                                String stepName, String queue, String deadLetterQueue, boolean dlqMessageMissing,
                                Instant dlqCheckedAt, String messageId, Long generation, int attempts, String exceptionClass,
                                String errorMessage, String detectedBy, Instant createdAt, Instant updatedAt, String requeuedBy,
                                Instant requeuedAt, String requeueMethod, String closedBy, Instant closedAt, String traceId,
                                String fingerprint, boolean requeueable) {

    /** The columns, in the order of the record's components, for a JPQL constructor expression over {@code d}. */
    static final String SELECT = "select new " + DeadLetterSummary.class.getName() + "(d.id, d.reason, d.status, d.runId,"
            + " d.pipeline, d.stepName, d.queue, d.deadLetterQueue, d.dlqMessageMissing, d.dlqCheckedAt, d.messageId,"
            + " d.generation, d.attempts, d.exceptionClass, d.errorMessage, d.detectedBy, d.createdAt, d.updatedAt,"
            + " d.requeuedBy, d.requeuedAt, d.requeueMethod, d.closedBy, d.closedAt, d.traceId, d.fingerprint,"
            + " case when " + DeadLetters.REQUEUEABLE + " then true else false end) from DeadLetter d";

    /** The summary of a dead letter already read whole. */
    public static DeadLetterSummary of(DeadLetter d) {
        return new DeadLetterSummary(d.id(), d.reason(), d.status(), d.runId(), d.pipeline(), d.stepName(), d.queue(),
                d.deadLetterQueue(), d.dlqMessageMissing(), d.dlqCheckedAt(), d.messageId(), d.generation(), d.attempts(),
                d.exceptionClass(), d.errorMessage(), d.detectedBy(), d.createdAt(), d.updatedAt(), d.requeuedBy(), d.requeuedAt(),
                d.requeueMethod(), d.closedBy(), d.closedAt(), d.traceId(), d.fingerprint(), d.canBeRequeued());
    }

    public boolean isOpen() {
        return status.isOpen();
    }

    public boolean canBeRequeued() {
        return requeueable;
    }

    /** See {@link DeadLetter#keepsRunStopped()}. */
    public boolean keepsRunStopped() {
        return DeadLetter.keepsRunStopped(runId, reason, status);
    }
}
