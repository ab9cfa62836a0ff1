package dev.lazarus.pipeline.entity;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.PostLoad;
import jakarta.persistence.Table;
import jakarta.persistence.Transient;
import jakarta.persistence.Version;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * One execution of a pipeline on a JSON payload: the source of truth for what the run is doing.
 *
 * <p>{@code generation} is the fencing token every step message carries. It changes with every dispatch (the
 * next step, a requeue) and when the sweeper or an operator stops a run whose consumer may still be alive, so
 * messages already in flight stop counting. A message is executed only if the run {@link #accepts} it.
 *
 * <p>{@code payload} is the pipeline's working document: each step receives it and returns the version the
 * next step sees.
 *
 * <p>Every change of its place is reported by {@code RunChanges} (pipeline control), its entity listener, declared in
 * {@code META-INF/orm.xml}: an entity depends on no control.
 */
@Entity
@Table(name = "run")
public class Run {

    /** The size of the payload column: no step output may be larger. */
    public static final int MAX_PAYLOAD = 200_000;

    /** The longest name of a pipeline or of a step (their columns everywhere). */
    public static final int NAME_LENGTH = 100;

    /** The longest Idempotency-Key a client may name its submission with. */
    public static final int SUBMISSION_KEY_LENGTH = 200;

    /** The column that keeps it, with the caller's name in front and a batch's index after (V19). */
    public static final int STORED_SUBMISSION_KEY_LENGTH = 320;

    @Id
    private UUID id;

    @Column(nullable = false, length = NAME_LENGTH)
    private String pipeline;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false, length = 20)
    private RunState state;

    @Column(name = "current_step", length = NAME_LENGTH)
    private String currentStep;

    @Column(nullable = false)
    private long generation;

    @Column(nullable = false, length = MAX_PAYLOAD)
    private String payload;

    @Column(name = "requeue_count", nullable = false)
    private int requeueCount;

    @Column(name = "created_at", nullable = false)
    private Instant createdAt;

    @Column(name = "updated_at", nullable = false)
    private Instant updatedAt;

    /** Set when a consumer starts the current step and whenever it reports progress. */
    @Column(name = "heartbeat_at")
    private Instant heartbeatAt;

    @Column(name = "finished_at")
    private Instant finishedAt;

    /** The client's name for the submission that created the run (its Idempotency-Key), if it gave one. */
    @Column(name = "submission_key", length = STORED_SUBMISSION_KEY_LENGTH)
    private String submissionKey;

    /** A digest of that submission's pipeline and payload: a retry must send the same request. */
    @Column(name = "submission_digest", length = 64)
    private String submissionDigest;

    /** The trace (W3C trace id, 32 hex digits) the run's spans belong to, from its submission on. */
    @Column(name = "trace_id", length = 32)
    private String traceId;

    /**
     * The node (its incarnation, see {@code Dispatches}) that sends the dispatch this run waits for, after the
     * transaction that recorded it commits; null for a dispatch sent inside its transaction (a requeue's). Read only
     * while the run is {@code PENDING}: if that node dies before sending, another sends it again.
     */
    @Column(name = "dispatched_by", length = 140)
    private String dispatchedBy;

    @Version
    private long version;

    /** Where the run was when it was read or its last change was reported: tells a change of place from other writes. */
    @Transient
    private Place reported;

    protected Run() {
        // for JPA
    }

    public Run(String pipeline, String firstStep, String payload, Instant now) {
        this.id = UUID.randomUUID();
        this.pipeline = Objects.requireNonNull(pipeline, "pipeline");
        this.currentStep = Objects.requireNonNull(firstStep, "firstStep");
        this.payload = Objects.requireNonNull(payload, "payload");
        this.state = RunState.PENDING;
        this.generation = 1;
        this.createdAt = now;
        this.updatedAt = now;
    }

    /**
     * A run's row as the hot path reads it with SQL ({@code StepRecords}: a step's claim is one statement, without an
     * entity manager): every column the entity maps (kept so by {@code StepRecordsTest}).
     */
    public record Row(UUID id, String pipeline, RunState state, String currentStep, long generation, String payload,
                      int requeueCount, Instant createdAt, Instant updatedAt, Instant heartbeatAt, Instant finishedAt,
                      String submissionKey, String submissionDigest, String traceId, String dispatchedBy, long version) {
    }

    /** The run a row holds, not managed by an entity manager; its place counts as reported (it was, when written). */
    public static Run restored(Row row) {
        Run run = new Run();
        run.id = Objects.requireNonNull(row.id());
        run.pipeline = row.pipeline();
        run.state = row.state();
        run.currentStep = row.currentStep();
        run.generation = row.generation();
        run.payload = row.payload();
        run.requeueCount = row.requeueCount();
        run.createdAt = row.createdAt();
        run.updatedAt = row.updatedAt();
        run.heartbeatAt = row.heartbeatAt();
        run.finishedAt = row.finishedAt();
        run.submissionKey = row.submissionKey();
        run.submissionDigest = row.submissionDigest();
        run.traceId = row.traceId();
        run.dispatchedBy = row.dispatchedBy();
        run.version = row.version();
        run.placeReported();
        return run;
    }

    /** Whether a message for this step and generation may execute now; anything else is stale. */
    public boolean accepts(String step, long messageGeneration) {
        return state.isLive() && generation == messageGeneration && Objects.equals(currentStep, step);
    }

    /** The dispatch this run now waits for is sent by {@code incarnation} once the transaction commits. */
    public void dispatchedBy(String incarnation) {
        if (state != RunState.PENDING) {
            throw new IllegalStateException("run " + id + " is " + state + ": it waits for no dispatch");
        }
        dispatchedBy = Objects.requireNonNull(incarnation, "incarnation");
    }

    /**
     * The dispatch this run waits for is sent again by {@code incarnation} once the transaction commits (a replay found
     * it waiting, or the node that sent it is gone): the run names its new sender and counts its wait from now.
     */
    public void dispatchedAgain(String incarnation, Instant now) {
        dispatchedBy(incarnation);
        updatedAt = now;
    }

    public void attemptStarted(Instant now) {
        requireLive("start an attempt");
        state = RunState.IN_PROGRESS;
        heartbeatAt = now;
        updatedAt = now;
    }

    /**
     * An operator asked for the step waiting in backoff to be delivered now: its wait counts from now, so the sweeper's
     * {@code unrecovered-after} clock does not judge a run just retried as stale.
     */
    public void retriedNow(Instant now) {
        if (state != RunState.RETRYING) {
            throw new IllegalStateException("run " + id + " is " + state + ", not waiting in backoff");
        }
        updatedAt = now;
    }

    public void attemptFailed(Instant now) {
        requireLive("record a failed attempt");
        state = RunState.RETRYING;
        updatedAt = now;
    }

    /**
     * The current step succeeded: move on to {@code nextStep} with the step's output as the new payload, under a
     * new generation. Every dispatch has its own, so a message of the next step that becomes visible before this
     * change does (two-phase commit gives no order between the broker and the database) is recognised as ahead of
     * the run, not mistaken for a stale one, and a late outcome of this step can never stop the next one.
     */
    public void advanceTo(String nextStep, String newPayload, Instant now) {
        requireLive("advance");
        generation++;
        currentStep = Objects.requireNonNull(nextStep, "nextStep");
        payload = Objects.requireNonNull(newPayload, "newPayload");
        state = RunState.PENDING;
        dispatchedBy = null;
        heartbeatAt = null;
        updatedAt = now;
    }

    public void complete(String finalPayload, Instant now) {
        requireLive("complete");
        payload = Objects.requireNonNull(finalPayload, "finalPayload");
        state = RunState.COMPLETED;
        heartbeatAt = null;
        finishedAt = now;
        updatedAt = now;
    }

    /**
     * Stops the run. With {@code fence}, messages already in flight become stale: the sweeper uses it because
     * the consumer it gave up on may still be running, and so does an operator's stop (a handler may be running, a
     * message waiting for its delivery); the consumer's own final attempt does not need it because its message goes
     * to the dead-letter queue.
     */
    public void deadLetter(boolean fence, Instant now) {
        if (state == RunState.DEAD_LETTERED) {
            return;
        }
        requireLive("dead-letter");
        state = RunState.DEAD_LETTERED;
        if (fence) {
            generation++;
        }
        heartbeatAt = null;
        finishedAt = now;
        updatedAt = now;
    }

    /** Brings a dead-lettered run back at its current step; returns the generation the new dispatch carries. */
    public long requeue(Instant now) {
        if (state != RunState.DEAD_LETTERED) {
            throw new IllegalStateException("run " + id + " is " + state + ", only a dead-lettered run can be requeued");
        }
        generation++;
        requeueCount++;
        state = RunState.PENDING;
        dispatchedBy = null;
        finishedAt = null;
        updatedAt = now;
        return generation;
    }

    /** An operator replaced the payload of the stopped run (it is requeued next, and the step gets the new one). */
    public void editPayload(String newPayload, Instant now) {
        if (state != RunState.DEAD_LETTERED) {
            throw new IllegalStateException("run " + id + " is " + state + ", only a dead-lettered run's payload can be edited");
        }
        payload = Objects.requireNonNull(newPayload, "newPayload");
        updatedAt = now;
    }

    /**
     * An operator finished the stopped step by hand (with an output they supplied, or by skipping it, the payload
     * unchanged): the run goes on at {@code nextStep} under a new generation, counted like a requeue; with no next
     * step it is complete. Returns the generation of the next dispatch.
     */
    public long continueByHand(String nextStep, String newPayload, Instant now) {
        if (state != RunState.DEAD_LETTERED) {
            throw new IllegalStateException("run " + id + " is " + state + ", only a dead-lettered run can be continued by hand");
        }
        generation++;
        requeueCount++;
        payload = Objects.requireNonNull(newPayload, "newPayload");
        updatedAt = now;
        if (nextStep == null) {
            state = RunState.COMPLETED;
            finishedAt = now;
        } else {
            currentStep = nextStep;
            state = RunState.PENDING;
            dispatchedBy = null;
            finishedAt = null;
        }
        return generation;
    }

    /**
     * Its dead-lettered message came back on its own (an operator used Retry in the Artemis console): resume
     * at the current step under a new generation, counted like a requeue.
     */
    public long replayed(Instant now) {
        return requeue(now);
    }

    private void requireLive(String action) {
        if (!state.isLive()) {
            throw new IllegalStateException("cannot " + action + ": run " + id + " is " + state);
        }
    }

    /** Names the run by the submission that created it, so a retry of that submission finds it. Once, before it is stored. */
    public void submittedAs(String key, String digest) {
        if (submissionKey != null) {
            throw new IllegalStateException("run " + id + " already has submission key " + submissionKey);
        }
        this.submissionKey = Objects.requireNonNull(key, "key");
        this.submissionDigest = Objects.requireNonNull(digest, "digest");
    }

    /** Whether a submission with this digest is the one that created the run (and not another request reusing its key). */
    public boolean createdBy(String digest) {
        return Objects.equals(submissionDigest, digest);
    }

    public String submissionKey() { return submissionKey; }
    public UUID id() { return id; }
    public String pipeline() { return pipeline; }
    public RunState state() { return state; }
    public String currentStep() { return currentStep; }
    public long generation() { return generation; }
    public String payload() { return payload; }
    public int requeueCount() { return requeueCount; }
    public Instant createdAt() { return createdAt; }
    public Instant updatedAt() { return updatedAt; }
    public Instant heartbeatAt() { return heartbeatAt; }
    public Instant finishedAt() { return finishedAt; }

    /** Names the trace the run's spans belong to; once, when it is started. */
    public void tracedAs(String trace) {
        if (traceId == null && trace != null && trace.matches("[0-9a-f]{32}")) {
            traceId = trace;
        }
    }

    public String traceId() { return traceId; }
    public String dispatchedBy() { return dispatchedBy; }
    public long version() { return version; }

    /** The run's place: its state, step and dispatch. */
    public record Place(RunState state, String step, long generation) {
    }

    public Place place() {
        return new Place(state, currentStep, generation);
    }

    /** Where the run was when read (or last reported); null for a run created in this transaction. */
    public Place reportedPlace() {
        return reported;
    }

    /** Its current place has been reported (or was read from the database, where it was reported when written). */
    @PostLoad
    public void placeReported() {
        reported = place();
    }
}
