package dev.lazarus.deadletter.entity;

import jakarta.persistence.CascadeType;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.OneToMany;
import jakarta.persistence.OrderBy;
import jakarta.persistence.PostLoad;
import jakarta.persistence.Table;
import jakarta.persistence.Transient;
import jakarta.persistence.Version;
import java.time.Duration;
import dev.lazarus.platform.entity.Text;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * Why a run (or a message that never became one) stopped: the diagnostics the broker cannot keep, next to
 * the message it parked in the step's dead-letter queue.
 *
 * <p>A dead letter of a run-stopping reason <em>holds</em> its run: the run is {@code DEAD_LETTERED} because of it,
 * while it is open and after it is closed by a resolve or a discard (which leave the run where it stopped for good);
 * only a requeue lets go of the run. Being the latest to stop it, it is the run's dead letter. {@code openRunId}
 * equals {@code runId} while it is open: a unique constraint on it lets the database, not just the code, guarantee
 * one open dead letter per run, the one a requeue brings the run back with. A dead letter about a message on its
 * own (a reason with {@code aboutMessage}) may name a run but never holds it. There is deliberately no foreign key to
 * the run: the evidence must survive the run row.
 *
 * <p>{@code parkedToken} is set when Lazarus puts the dead letter's message into the step's DLQ: a random
 * value stamped on the message. A message retried from the Artemis console brings it back; nothing else can.
 *
 * <p>The investigation workflow is a small state machine: {@code PENDING} → {@code INVESTIGATING} →
 * {@code REQUEUED} | {@code RESOLVED_MANUALLY} | {@code DISCARDED} (the last three also straight from
 * pending). Every step, and every note, is appended to the audit trail with the actor.
 *
 * <p>Every change is reported by {@code DeadLetterChanges} (dead-letter control), its entity listener, declared in
 * {@code META-INF/orm.xml}: an entity depends on no control.
 */
@Entity
@Table(name = "dead_letter")
public class DeadLetter {

    /** The size of the run snapshot column. */
    public static final int MAX_SNAPSHOT = 200_000;

    @Id
    @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "dead_letter_ids")
    @SequenceGenerator(name = "dead_letter_ids", sequenceName = "dead_letter_seq", allocationSize = 50)
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

    @Column(name = "run_snapshot", length = MAX_SNAPSHOT)
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
    @Column(name = "requeue_method", length = 40)
    private String requeueMethod;

    @Column(name = "closed_at")
    private Instant closedAt;

    @Column(name = "closed_by", length = 100)
    private String closedBy;

    /** Why it happened, as the operator who resolved it judged (optional; only a resolve records one). */
    @Enumerated(EnumType.STRING)
    @Column(name = "resolved_root_cause", length = 20)
    private RootCause resolvedRootCause;

    @Column(name = "dlq_message_missing", nullable = false)
    private boolean dlqMessageMissing;

    @Column(name = "dlq_checked_at")
    private Instant dlqCheckedAt;

    @Column(name = "parked_token", length = 36)
    private String parkedToken;

    @OneToMany(mappedBy = "deadLetter", cascade = CascadeType.ALL, orphanRemoval = true)
    @OrderBy("at, id")
    private List<DeadLetterEvent> events = new ArrayList<>();

    /** What its cause looks like ({@link Fingerprint}): dead letters with the same cause share it. */
    @Column(length = 16)
    private String fingerprint;

    /** Where its exception was thrown ({@code class.method}), as its fingerprint took it: what its group of causes shows. */
    @Column(name = "top_frame", length = StackSummary.MAX_NAME)
    private String topFrame;

    /** The class of its exception's root cause, as its fingerprint took it. */
    @Column(name = "root_cause", length = StackSummary.MAX_NAME)
    private String rootCause;

    /** The {@link Fingerprint#RULE} that computed the three above; null for one recorded before V14 (the sweep computes them again). */
    @Column(name = "fingerprint_rule")
    private Integer fingerprintRule;

    /** The trace of the run (or message) it is about, if it carried one: the way from here to the run's spans. */
    @Column(name = "trace_id", length = 32)
    private String traceId;

    @Version
    private long version;

    /** The status it had when read or when its last change was reported. */
    @Transient
    private DeadLetterStatus reportedStatus;

    protected DeadLetter() {
        // for JPA
    }

    public DeadLetter(DeadLetterReason reason, String queue, String deadLetterQueue, String detectedBy, Instant now) {
        this(reason, queue, deadLetterQueue, detectedBy, detectedBy, null, now);
    }

    /**
     * A dead letter whose making is someone's act ({@code createdBy}, with {@code note} saying why: an operator who
     * stopped a run by hand), not only a detection path's finding: its audit trail starts with them.
     */
    public DeadLetter(DeadLetterReason reason, String queue, String deadLetterQueue, String detectedBy, String createdBy, String note,
                      Instant now) {
        this.reason = Objects.requireNonNull(reason, "reason");
        takeCause(Fingerprint.of(reason, null, null, StackSummary.NONE)); // until the error is known (withError)
        this.queue = Objects.requireNonNull(queue, "queue");
        this.deadLetterQueue = Objects.requireNonNull(deadLetterQueue, "deadLetterQueue");
        this.detectedBy = Objects.requireNonNull(detectedBy, "detectedBy");
        this.status = DeadLetterStatus.PENDING;
        this.createdAt = now;
        this.updatedAt = now;
        events.add(new DeadLetterEvent(this, now, requireActor(createdBy), DeadLetterAction.CREATED, null, DeadLetterStatus.PENDING, note));
    }

    /**
     * Says which run and dispatch this is about. A dead letter of a run-stopping reason then holds the run;
     * one about a message on its own only names it.
     */
    public DeadLetter forRun(UUID run, String pipelineName, String step, Long runGeneration) {
        this.runId = run;
        this.openRunId = reason.aboutMessage() ? null : run;
        this.pipeline = Text.truncate(pipelineName, 100); // a message sent by hand may name anything
        this.stepName = Text.truncate(step, 100);
        this.generation = runGeneration;
        return this;
    }

    public DeadLetter withMessage(String id, String body) {
        this.messageId = Text.truncate(id, 200);
        this.messageBody = Text.truncate(body, 16000);
        return this;
    }

    /** The error, known only as text: its cause is read from the stack trace text ({@link Fingerprint#ofStored}). */
    public DeadLetter withError(String exception, String message, String trace, int attemptCount) {
        return withError(exception, message, trace, null, attemptCount);
    }

    /**
     * The error, and what the exception's own stack trace says ({@link StackSummary#of(Throwable)}), if it was at hand:
     * its fingerprint is taken from that, never from the text, where the message could pass for frames.
     */
    public DeadLetter withError(String exception, String message, String trace, StackSummary stack, int attemptCount) {
        this.exceptionClass = Text.truncate(exception, 500);
        this.errorMessage = Text.truncate(message, 4000);
        this.stackTrace = Text.truncate(trace, 16000);
        this.attempts = attemptCount;
        takeCause(stack != null ? Fingerprint.of(reason, exceptionClass, errorMessage, stack)
                : Fingerprint.ofStored(reason, exceptionClass, errorMessage, stackTrace));
        return this;
    }

    private void takeCause(Fingerprint cause) {
        this.fingerprint = cause.key();
        this.topFrame = cause.topFrame();
        this.rootCause = cause.rootCause();
        this.fingerprintRule = Fingerprint.RULE;
    }

    /**
     * The error of a dead letter the loop guard parks ({@code REQUEUE_LIMIT}): what it would have been, after how many
     * requeues, and the error.
     */
    public static String loopGuardError(DeadLetterReason wouldHaveBeen, int requeues, int limit, String error) {
        return wouldHaveBeen + " after " + requeues + " requeues (limit " + limit + "): " + error;
    }

    /** The error a {@link #loopGuardError} was made from (its words end at the first "): "), or null. */
    static String errorBeforeLoopGuard(String loopGuardError) {
        int end = loopGuardError == null ? -1 : loopGuardError.indexOf("): ");
        return end < 0 ? null : loopGuardError.substring(end + 3);
    }

    /** The trace it belongs to: 32 hex digits, anything else (a property set by hand) is ignored. */
    public DeadLetter withTrace(String trace) {
        if (trace != null && trace.matches("[0-9a-f]{32}")) {
            this.traceId = trace;
        }
        return this;
    }

    public String traceId() { return traceId; }

    public String fingerprint() { return fingerprint; }
    public String topFrame() { return topFrame; }
    public String rootCause() { return rootCause; }
    public Integer fingerprintRule() { return fingerprintRule; }

    /** The status last reported (null for one created in this transaction). */
    public DeadLetterStatus reportedStatus() {
        return reportedStatus;
    }

    @PostLoad
    public void statusReported() {
        reportedStatus = status;
    }

    /** The run as it stopped; {@code snapshot} must fit its column ({@link #MAX_SNAPSHOT} characters). */
    public DeadLetter withRunSnapshot(String snapshot) {
        if (snapshot != null && snapshot.length() > MAX_SNAPSHOT) {
            throw new IllegalArgumentException("a run snapshot has at most " + MAX_SNAPSHOT + " characters, this one " + snapshot.length());
        }
        this.runSnapshot = snapshot;
        return this;
    }

    public boolean isOpen() {
        return status.isOpen();
    }

    /** Whether this is the open dead letter its run is stopped by, the one that can bring it back (see the class comment). */
    public boolean holdsRun() {
        return openRunId != null;
    }

    /**
     * Whether it still keeps its run stopped, being the latest that stopped it: it stopped it and no requeue let go of
     * it since (open, resolved or discarded). See the class comment.
     */
    public boolean keepsRunStopped() {
        return keepsRunStopped(runId, reason, status);
    }

    /** The rule of {@link #keepsRunStopped()}, for a dead letter read as a summary. */
    public static boolean keepsRunStopped(UUID runId, DeadLetterReason reason, DeadLetterStatus status) {
        return runId != null && !reason.aboutMessage() && status != DeadLetterStatus.REQUEUED;
    }

    /** Open, holding its run, and not parked by the loop guard. */
    public boolean canBeRequeued() {
        return holdsRun() && stepName != null && reason != DeadLetterReason.REQUEUE_LIMIT;
    }

    /**
     * Its message is being put into the DLQ by Lazarus: the token to stamp on it (the same every time, so a
     * message parked again after a refused retry still carries it).
     */
    public String markParked() {
        if (parkedToken == null) {
            parkedToken = UUID.randomUUID().toString();
        }
        return parkedToken;
    }

    /** The token on its parked message, or null if Lazarus has not parked one. */
    public String parkedToken() {
        return parkedToken;
    }

    /** Whether Lazarus has parked this dead letter's message in the DLQ. */
    public boolean isParked() {
        return parkedToken != null;
    }

    /** Whether a message carrying {@code token} is the one Lazarus parked for this dead letter. */
    public boolean parkedWith(String token) {
        return parkedToken != null && parkedToken.equals(token);
    }

    /** An operator starts looking into it; others can see it is taken. */
    public void startInvestigation(String operator, String note, Instant now) {
        if (status != DeadLetterStatus.PENDING) {
            throw new IllegalStateException("dead letter " + id + " is " + status + "; only a pending one can be taken into investigation");
        }
        transition(DeadLetterStatus.INVESTIGATING, DeadLetterAction.INVESTIGATION_STARTED, operator, note, now);
    }

    /** Notes can be added at any time, also after the dead letter is closed. */
    public void addNote(String author, String note, Instant now) {
        events.add(new DeadLetterEvent(this, now, requireActor(author), DeadLetterAction.NOTE, status, status, requireNote(note)));
        updatedAt = now;
    }

    /** The run was brought back by {@code operator}; {@code method} says whether its DLQ message was moved. */
    public void requeued(String operator, String method, Instant now) {
        close(DeadLetterStatus.REQUEUED, DeadLetterAction.REQUEUED, operator, method, now);
        requeuedBy = operator;
        requeueMethod = method;
        requeuedAt = now;
    }

    /**
     * An operator changed the run by hand before it goes on ({@code action}: the payload edited, the step completed
     * with their output, or skipped): who, why ({@code note}, required) and what ({@code detail}, JSON) go into the
     * audit trail. The requeue that follows closes the dead letter.
     */
    public void fixedByHand(DeadLetterAction action, String operator, String note, String detail, Instant now) {
        if (action != DeadLetterAction.PAYLOAD_EDITED && action != DeadLetterAction.STEP_COMPLETED_BY_HAND && action != DeadLetterAction.STEP_SKIPPED) {
            throw new IllegalArgumentException(action + " is not a fix by hand");
        }
        if (!isOpen()) {
            throw new IllegalStateException("dead letter " + id + " is already " + status);
        }
        events.add(new DeadLetterEvent(this, now, requireActor(operator), action, status, status, requireNote(note)).withDetail(detail));
        updatedAt = now;
    }

    /**
     * An operator started {@code newRun}, a new run of the same pipeline, from this dead letter's run: kept in the audit
     * trail (the detail, JSON, names the new run), whatever the dead letter's status. If it is open and {@code resolve},
     * it is resolved by the same hand with the note "recreated as run ..."; the old run stays where it stopped.
     *
     * @return whether it was resolved now
     */
    public boolean recreated(String operator, java.util.UUID newRun, boolean resolve, String detail, Instant now) {
        String note = "recreated as run " + newRun;
        events.add(new DeadLetterEvent(this, now, requireActor(operator), DeadLetterAction.RECREATED, status, status, note)
                .withDetail(detail));
        updatedAt = now;
        if (resolve && isOpen()) {
            resolve(operator, note, now);
            return true;
        }
        return false;
    }

    /** The cause was dealt with outside Lazarus; the run stays where it stopped. */
    public void resolve(String operator, String note, Instant now) {
        resolve(operator, note, null, now);
    }

    /**
     * The same, recording why it happened ({@code rootCause}, optional): kept on it, and in the resolve's audit entry
     * as {@code {"rootCause": "..."}}.
     */
    public void resolve(String operator, String note, RootCause rootCause, Instant now) {
        close(DeadLetterStatus.RESOLVED_MANUALLY, DeadLetterAction.RESOLVED, operator, requireNote(note), now);
        if (rootCause != null) {
            resolvedRootCause = rootCause;
            events.get(events.size() - 1).withDetail("{\"rootCause\":\"" + rootCause.name() + "\"}");
        }
    }

    /** Not worth bringing back. The evidence (this row, the DLQ message) is kept all the same. */
    public void discard(String operator, String note, Instant now) {
        close(DeadLetterStatus.DISCARDED, DeadLetterAction.DISCARDED, operator, requireNote(note), now);
    }

    /** What the reconciler found in the DLQ; a change is recorded in the audit trail. */
    public void dlqMessagePresent(boolean present, Instant now) {
        dlqCheckedAt = now;
        if (dlqMessageMissing == present) {
            dlqMessageMissing = !present;
            events.add(new DeadLetterEvent(this, now, "reconciler",
                    present ? DeadLetterAction.DLQ_MESSAGE_FOUND : DeadLetterAction.DLQ_MESSAGE_MISSING, status, status,
                    present ? "the message is in " + deadLetterQueue + " again"
                            : "the message is no longer in " + deadLetterQueue + " (purged or moved by hand?)"));
        }
    }

    /** How long it took from dead letter to closed, if it is closed. */
    public Duration timeToResolution() {
        return closedAt == null ? null : Duration.between(createdAt, closedAt);
    }

    private void close(DeadLetterStatus to, DeadLetterAction action, String operator, String note, Instant now) {
        if (!isOpen()) {
            throw new IllegalStateException("dead letter " + id + " is already " + status
                    + (closedBy != null ? " (by " + closedBy + " at " + closedAt + ")" : ""));
        }
        transition(to, action, operator, note, now);
        openRunId = null;
        closedAt = now;
        closedBy = operator;
    }

    private void transition(DeadLetterStatus to, DeadLetterAction action, String actor, String note, Instant now) {
        events.add(new DeadLetterEvent(this, now, requireActor(actor), action, status, to, note));
        status = to;
        updatedAt = now;
    }

    private static String requireActor(String actor) {
        if (actor == null || actor.isBlank()) {
            throw new IllegalArgumentException("every action on a dead letter needs an actor");
        }
        return actor;
    }

    private static String requireNote(String note) {
        if (note == null || note.isBlank()) {
            throw new IllegalArgumentException("a note must not be empty");
        }
        return note; // its length is the audit entry's to check
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
    public Instant closedAt() { return closedAt; }
    public String closedBy() { return closedBy; }
    public RootCause resolvedRootCause() { return resolvedRootCause; }
    public boolean dlqMessageMissing() { return dlqMessageMissing; }
    public Instant dlqCheckedAt() { return dlqCheckedAt; }
    public List<DeadLetterEvent> events() { return Collections.unmodifiableList(events); }
    public UUID openRunId() { return openRunId; }
    public long version() { return version; }

    /**
     * Gives a dead letter that is written without the entity manager (a sweep's batch, see {@code DeadLetterRows})
     * the ids JPA would have given it and its audit entries.
     */
    public void takeIds(long ownId, java.util.function.LongSupplier eventIds) {
        if (id != null) {
            throw new IllegalStateException("dead letter " + id + " already has its id");
        }
        id = ownId;
        events.forEach(event -> event.takeId(eventIds.getAsLong()));
    }
}
