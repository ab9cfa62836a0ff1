package dev.lazarus.deadletter.entity;

import dev.lazarus.platform.control.Text;
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
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * A bulk requeue: the filter it works through, at what rate, on whose behalf, and how far it got. Its
 * counters are updated in the same transaction as each batch of requeues, so they never disagree with what
 * was done, whatever happens to the server.
 *
 * <p>Every change is stamped ({@code updatedAt}, {@code finishedAt}) with the database's clock, not the node's: any
 * node judges from {@code updatedAt} whether the job's worker is still alive, and the nodes' clocks need not agree.
 */
@Entity
@Table(name = "requeue_job")
public class RequeueJob {

    public enum State {
        RUNNING, COMPLETED, CANCELLED, FAILED,
        /** The server stopped while it ran; what it did is done (and counted), the rest is still open. */
        INTERRUPTED;

        public boolean isFinished() {
            return this != RUNNING;
        }
    }

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(name = "requested_by", nullable = false, length = 100)
    private String requestedBy;

    @Column(nullable = false, length = 100)
    private String node;

    @Column(name = "cursor_id", nullable = false)
    private long cursorId;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false, length = 20)
    private State state;

    /** The cause (fingerprint) it requeues, if it was started from one group of causes. */
    @Column(name = "filter_fingerprint", length = 16)
    private String filterCause;

    @Enumerated(EnumType.STRING)
    @Column(name = "filter_reason", length = 40)
    private DeadLetterReason filterReason;

    @Column(name = "filter_pipeline", length = 100)
    private String filterPipeline;

    @Column(name = "filter_step", length = 100)
    private String filterStep;

    @Column(name = "filter_from")
    private Instant filterFrom;

    @Column(name = "filter_to")
    private Instant filterTo;

    @Column(name = "filter_error", length = 200)
    private String filterError;

    @Enumerated(EnumType.STRING)
    @Column(name = "filter_status", length = 30)
    private DeadLetterStatus filterStatus;

    @Column(name = "filter_run_id")
    private UUID filterRunId;

    /** The newest dead letter that existed when the job was counted: it never acts on one created later. */
    @Column(name = "max_dead_letter_id", nullable = false)
    private long maxDeadLetterId;

    /** The first dead letters the job passed over, and why. */
    @Column(name = "skipped_detail", length = 2000)
    private String skippedDetail;

    /** 0 for as fast as it goes. */
    @Column(name = "rate_per_second", nullable = false)
    private int ratePerSecond;

    @Column(nullable = false)
    private long total;

    @Column(nullable = false)
    private long requeued;

    @Column(nullable = false)
    private long redispatched;

    @Column(nullable = false)
    private long skipped;

    @Column(name = "cancel_requested", nullable = false)
    private boolean cancelRequested;

    @Column(name = "last_error", length = 2000)
    private String lastError;

    /** When it was counted, by the clock of the node that started it (the clock its dead letters are stamped with too). */
    @Column(name = "created_at", nullable = false)
    private Instant createdAt;

    /** Its last change (its worker's last progress), by the database's clock. */
    @Column(name = "updated_at", nullable = false)
    private Instant updatedAt;

    @Column(name = "finished_at")
    private Instant finishedAt;

    @Version
    private long version;

    protected RequeueJob() {
        // for JPA
    }

    /**
     * @param filter          what to requeue: every part of it is kept, and the job acts on open dead letters only
     * @param total           what the dry run of {@code filter} counted
     * @param maxDeadLetterId the newest dead letter id when it was counted
     * @param countedAt       when it was counted, by the starting node's clock: it acts on no dead letter recorded later
     * @param databaseNow     the database's time now
     */
    public RequeueJob(DeadLetterFilter filter, int ratePerSecond, long total, long maxDeadLetterId, String requestedBy, String node,
                      Instant countedAt, Instant databaseNow) {
        if (ratePerSecond < 0) {
            throw new IllegalArgumentException("the rate must be 0 (unlimited) or positive, was " + ratePerSecond);
        }
        if (filter.status() != null && !filter.status().isOpen()) {
            throw new IllegalArgumentException("only open dead letters can be requeued; status " + filter.status() + " is closed");
        }
        this.filterStatus = filter.status();
        this.filterRunId = filter.runId();
        this.maxDeadLetterId = maxDeadLetterId;
        this.filterReason = filter.reason();
        this.filterPipeline = filter.pipeline();
        this.filterStep = filter.step();
        this.filterFrom = filter.from();
        this.filterTo = filter.to();
        this.filterError = filter.errorContains();
        this.filterCause = filter.cause();
        this.ratePerSecond = ratePerSecond;
        this.total = total;
        this.requestedBy = Objects.requireNonNull(requestedBy, "requestedBy");
        this.node = Objects.requireNonNull(node, "node");
        this.state = State.RUNNING;
        this.createdAt = countedAt;
        this.updatedAt = databaseNow;
    }

    /** The dead letters this job requeues: open ones matching its filter (and no newer than {@link #maxDeadLetterId}). */
    public DeadLetterFilter filter() {
        return new DeadLetterFilter(filterReason, filterStatus, filterRunId, true, filterPipeline, filterStep, filterFrom, filterTo,
                filterError, filterCause);
    }

    /**
     * One batch was done, up to dead letter {@code lastId}: {@code moved} taken from their DLQ,
     * {@code dispatched} sent from the database, {@code skippedNow} passed over ("id: why"); {@code databaseNow} is the
     * database's time: the sign of life other nodes judge the worker by.
     */
    public void progressed(long lastId, int moved, int dispatched, List<String> skippedNow, Instant databaseNow) {
        cursorId = Math.max(cursorId, lastId);
        requeued += moved + dispatched;
        redispatched += dispatched;
        skipped += skippedNow.size();
        if (!skippedNow.isEmpty() && (skippedDetail == null || skippedDetail.length() < 1900)) {
            skippedDetail = Text.truncate((skippedDetail == null ? "" : skippedDetail + "\n") + String.join("\n", skippedNow), 2000);
        }
        updatedAt = databaseNow;
    }

    public void requestCancel(Instant databaseNow) {
        if (state.isFinished()) {
            throw new IllegalStateException("job " + id + " is already " + state);
        }
        cancelRequested = true;
        updatedAt = databaseNow;
    }

    public void finish(State end, String error, Instant databaseNow) {
        if (state.isFinished()) {
            return;
        }
        state = end;
        lastError = Text.truncate(error, 2000);
        finishedAt = databaseNow;
        updatedAt = databaseNow;
    }

    public Long id() { return id; }
    public String requestedBy() { return requestedBy; }
    public String node() { return node; }
    public long cursorId() { return cursorId; }
    public long maxDeadLetterId() { return maxDeadLetterId; }
    public String skippedDetail() { return skippedDetail; }
    public State state() { return state; }
    public int ratePerSecond() { return ratePerSecond; }
    public long total() { return total; }
    public long requeued() { return requeued; }
    public long redispatched() { return redispatched; }
    public long skipped() { return skipped; }
    public boolean cancelRequested() { return cancelRequested; }
    public String lastError() { return lastError; }
    public Instant createdAt() { return createdAt; }
    public Instant updatedAt() { return updatedAt; }
    public Instant finishedAt() { return finishedAt; }
}
