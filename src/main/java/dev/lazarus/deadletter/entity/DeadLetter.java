package dev.lazarus.deadletter.entity;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * Why a run (or a message that never became one) stopped: the diagnostics the broker cannot keep, next to
 * the message it parked in the step's dead-letter queue.
 *
 * <p>{@code openRunId} equals {@code runId} while the dead letter is open and is cleared when it is closed;
 * a unique constraint on it lets the database, not just the code, guarantee one open dead letter per run.
 * There is deliberately no foreign key to the run: the evidence must survive the run row.
 */
@Entity
@Table(name = "dead_letter")
public class DeadLetter {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(name = "run_id")
    private UUID runId;

    @Column(name = "open_run_id", unique = true)
    private UUID openRunId;

    @Column(length = 100)
    private String pipeline;

    @Column(name = "step_name", length = 100)
    private String stepName;

    @Column(nullable = false, length = 200)
    private String queue;

    @Column(name = "dead_letter_queue", nullable = false, length = 210)
    private String deadLetterQueue;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false, length = 40)
    private DeadLetterReason reason;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false, length = 30)
    private DeadLetterStatus status;

    @Column(name = "message_id", length = 200)
    private String messageId;

    private Long generation;

    @Column(nullable = false)
    private int attempts;

    @Column(name = "exception_class", length = 500)
    private String exceptionClass;

    @Column(name = "error_message", length = 4000)
    private String errorMessage;

    @Column(name = "stack_trace", length = 16000)
    private String stackTrace;

    @Column(name = "run_snapshot", length = 200_000)
    private String runSnapshot;

    /** The message body as received, kept when it is not a step message (the run cannot explain it). */
    @Column(name = "message_body", length = 16000)
    private String messageBody;

    @Column(name = "detected_by", nullable = false, length = 20)
    private String detectedBy;

    @Column(name = "created_at", nullable = false)
    private Instant createdAt;

    @Column(name = "updated_at", nullable = false)
    private Instant updatedAt;

    @Column(name = "requeued_by", length = 100)
    private String requeuedBy;

    @Column(name = "requeued_at")
    private Instant requeuedAt;

    /** How the requeue found the message: moved back from the DLQ, or dispatched again from the database. */
    @Column(name = "requeue_method", length = 20)
    private String requeueMethod;

    @Version
    private long version;

    protected DeadLetter() {
        // for JPA
    }

    public DeadLetter(DeadLetterReason reason, String queue, String deadLetterQueue, String detectedBy, Instant now) {
        this.reason = Objects.requireNonNull(reason, "reason");
        this.queue = Objects.requireNonNull(queue, "queue");
        this.deadLetterQueue = Objects.requireNonNull(deadLetterQueue, "deadLetterQueue");
        this.detectedBy = Objects.requireNonNull(detectedBy, "detectedBy");
        this.status = DeadLetterStatus.PENDING;
        this.createdAt = now;
        this.updatedAt = now;
    }

    public DeadLetter forRun(UUID run, String pipelineName, String step, Long runGeneration) {
        this.runId = run;
        this.openRunId = run;
        this.pipeline = pipelineName;
        this.stepName = step;
        this.generation = runGeneration;
        return this;
    }

    public DeadLetter withMessage(String id, String body) {
        this.messageId = id;
        this.messageBody = truncate(body, 16000);
        return this;
    }

    public DeadLetter withError(String exception, String message, String trace, int attemptCount) {
        this.exceptionClass = truncate(exception, 500);
        this.errorMessage = truncate(message, 4000);
        this.stackTrace = truncate(trace, 16000);
        this.attempts = attemptCount;
        return this;
    }

    public DeadLetter withRunSnapshot(String snapshot) {
        this.runSnapshot = snapshot;
        return this;
    }

    public boolean isOpen() {
        return status.isOpen();
    }

    public boolean canBeRequeued() {
        return isOpen() && runId != null && stepName != null;
    }

    /** The run was brought back by {@code operator}; {@code method} says whether its DLQ message was moved. */
    public void requeued(String operator, String method, Instant now) {
        if (!isOpen()) {
            throw new IllegalStateException("dead letter " + id + " is " + status + " and cannot be requeued");
        }
        status = DeadLetterStatus.REQUEUED;
        openRunId = null;
        requeuedBy = Objects.requireNonNull(operator, "operator");
        requeueMethod = method;
        requeuedAt = now;
        updatedAt = now;
    }

    static String truncate(String text, int max) {
        if (text == null || text.length() <= max) {
            return text;
        }
        return text.substring(0, max - 1) + "…";
    }

    public Long id() { return id; }
    public UUID runId() { return runId; }
    public String pipeline() { return pipeline; }
    public String stepName() { return stepName; }
    public String queue() { return queue; }
    public String deadLetterQueue() { return deadLetterQueue; }
    public DeadLetterReason reason() { return reason; }
    public DeadLetterStatus status() { return status; }
    public String messageId() { return messageId; }
    public Long generation() { return generation; }
    public int attempts() { return attempts; }
    public String exceptionClass() { return exceptionClass; }
    public String errorMessage() { return errorMessage; }
    public String stackTrace() { return stackTrace; }
    public String runSnapshot() { return runSnapshot; }
    public String messageBody() { return messageBody; }
    public String detectedBy() { return detectedBy; }
    public Instant createdAt() { return createdAt; }
    public Instant updatedAt() { return updatedAt; }
    public String requeuedBy() { return requeuedBy; }
    public Instant requeuedAt() { return requeuedAt; }
    public String requeueMethod() { return requeueMethod; }
}
