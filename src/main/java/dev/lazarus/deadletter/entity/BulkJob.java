package dev.lazarus.deadletter.entity;

import dev.lazarus.platform.entity.Text;
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
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * A bulk job: one action (requeue, discard, resolve) on the open dead letters of a filter, at what rate, on whose
 * behalf, why (a discard's or a resolve's note), and how far it got. It acts on exactly the dead letters its count
 * found ({@link BulkJobItem}, kept when it starts). Its counters are updated in the same transaction as each batch,
 * so they never disagree with what was done, whatever happens to the server.
 *
 * <p>Every change is stamped ({@code updatedAt}, {@code finishedAt}) with the database's clock, not the node's: any
 * node judges from {@code updatedAt} whether the job's worker is still alive, and the nodes' clocks need not agree.
 */
@Entity
@Table(name = "bulk_job")
public class BulkJob {

    public enum State {
        RUNNING, COMPLETED, CANCELLED, FAILED,
        /** The server stopped while it ran; what it did is done (and counted), the rest is still open. */
        INTERRUPTED;

        public boolean isFinished() {
            return this != RUNNING;
        }
    }

    /**
     * What a job does to each dead letter. A requeue selects the open dead letters that hold a run it can bring back; a
     * discard or a resolve closes any open one, a dead letter about a message on its own too (an outage of garbage
     * messages is what an operator discards in bulk), and needs a note: why, for each one's audit trail.
     */
    public enum Action {
        REQUEUE("requeued"), DISCARD("discarded"), RESOLVE("resolved");

        private final String done;

        Action(String done) {
            this.done = done;
        }

        /** Its name in the API: {@code requeue}, {@code discard}, {@code resolve}. */
        public String apiName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** What it did to a dead letter, as a sentence says it ("3 of 5 discarded"). */
        public String done() {
            return done;
        }

        /** Whether it closes dead letters for good (and so needs the operator's note). */
        public boolean closes() {
            return this != REQUEUE;
        }

        /** The API's names, as a refusal lists them. */
        public static String names() {
            return Arrays.stream(values()).map(Action::apiName).collect(Collectors.joining(", "));
        }

        /** The action of an API name, exactly as {@link #apiName()} writes it. */
        public static Action named(String name) {
            return Arrays.stream(values()).filter(action -> action.apiName().equals(name)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("'action' must be one of " + names() + ", was '"
                            + Text.printable(name, 40) + "'"));
        }
    }

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false, length = 20)
    private Action action;

    /** Why, for a discard or a resolve: the note of each dead letter's audit entry. Null for a requeue. */
    @Column(length = DeadLetterEvent.NOTE_LENGTH)
    private String note;

    /** Why the dead letters happened, as a resolve's requester judged (optional): each one resolved records it. */
    @Enumerated(EnumType.STRING)
    @Column(name = "root_cause", length = 20)
    private RootCause rootCause;

    @Column(name = "requested_by", nullable = false, length = 100)
    private String requestedBy;

    @Column(nullable = false, length = 100)
    private String node;

    /** The highest dead letter id handled so far: the job moves forward through its items, even past ones it skips. */
    @Column(name = "cursor_id", nullable = false)
    private long cursorId;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false, length = 20)
    private State state;

    /** The cause (fingerprint) it selects, if it was started from one group of causes. */
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

    /** The first dead letters the job passed over, and why. */
    @Column(name = "skipped_detail", length = 2000)
    private String skippedDetail;

    /** 0 for as fast as it goes. */
    @Column(name = "rate_per_second", nullable = false)
    private int ratePerSecond;

    /** How many dead letters its count found: its items. */
    @Column(nullable = false)
    private long total;

    /** How many it requeued, discarded or resolved. */
    @Column(nullable = false)
    private long done;

    /** Of a requeue's: how many were dispatched from the database (their DLQ message was gone). */
    @Column(nullable = false)
    private long redispatched;

    @Column(nullable = false)
    private long skipped;

    @Column(name = "cancel_requested", nullable = false)
    private boolean cancelRequested;

    @Column(name = "last_error", length = 2000)
    private String lastError;

    /** When it was counted, by the clock of the node that started it. */
    @Column(name = "created_at", nullable = false)
    private Instant createdAt;

    /** Its last change (its worker's last progress), by the database's clock. */
    @Column(name = "updated_at", nullable = false)
    private Instant updatedAt;

    @Column(name = "finished_at")
    private Instant finishedAt;

    @Version
    private long version;

    protected BulkJob() {
        // for JPA
    }

    /**
     * A job about to be counted ({@link #counted}).
     *
     * @param note        why, required for an action that {@link Action#closes() closes} dead letters and refused for a
     *                    requeue (whose audit entries say how each run came back, not why); its length is the caller's to check
     * @param filter      what it selects: every part of it is kept, and it selects open dead letters only
     * @param countedAt   when it was counted, by the starting node's clock
     * @param databaseNow the database's time now
     */
    public BulkJob(Action action, String note, DeadLetterFilter filter, int ratePerSecond, String requestedBy, String node,
                   Instant countedAt, Instant databaseNow) {
        this.action = Objects.requireNonNull(action, "action");
        if (action.closes() && (note == null || note.isBlank())) {
            throw new IllegalArgumentException("a bulk " + action.apiName() + " needs a note: why the dead letters are " + action.done());
        }
        if (!action.closes() && note != null) {
            throw new IllegalArgumentException("a bulk requeue takes no note: each dead letter's audit entry says how its run came back");
        }
        if (ratePerSecond < 0) {
            throw new IllegalArgumentException("the rate must be 0 (unlimited) or positive, was " + ratePerSecond);
        }
        if (filter.status() != null && !filter.status().isOpen()) {
            throw new IllegalArgumentException("only open dead letters can be " + action.done() + "; status " + filter.status() + " is closed");
        }
        this.note = note;
        this.filterStatus = filter.status();
        this.filterRunId = filter.runId();
        this.filterReason = filter.reason();
        this.filterPipeline = filter.pipeline();
        this.filterStep = filter.step();
        this.filterFrom = filter.from();
        this.filterTo = filter.to();
        this.filterError = filter.errorContains();
        this.filterCause = filter.cause();
        this.ratePerSecond = ratePerSecond;
        this.requestedBy = Objects.requireNonNull(requestedBy, "requestedBy");
        this.node = Objects.requireNonNull(node, "node");
        this.state = State.RUNNING;
        this.createdAt = countedAt;
        this.updatedAt = databaseNow;
    }

    /** A resolve records why the dead letters happened with each of them; no other action takes a root cause. */
    public BulkJob withRootCause(RootCause cause) {
        if (cause != null && action != Action.RESOLVE) {
            throw new IllegalArgumentException("only a resolve records a root cause; a bulk " + action.apiName() + " takes no 'rootCause'");
        }
        this.rootCause = cause;
        return this;
    }

    /** Its count: how many dead letters it keeps as its items, set once, when they are kept. */
    public void counted(long items) {
        if (items < 0) {
            throw new IllegalArgumentException("a count is 0 or more, was " + items);
        }
        total = items;
    }

    /** The dead letters this job selects: open ones matching its filter (of which it acts on those it counted). */
    public DeadLetterFilter filter() {
        return new DeadLetterFilter(filterReason, filterStatus, filterRunId, true, filterPipeline, filterStep, filterFrom, filterTo,
                filterError, filterCause);
    }

    /**
     * One batch was done, up to dead letter {@code lastId}: {@code acted} requeued, discarded or resolved (of a requeue's,
     * {@code dispatched} of them sent from the database), {@code skippedNow} passed over ("id: why"); {@code databaseNow} is
     * the database's time: the sign of life other nodes judge the worker by.
     */
    public void progressed(long lastId, int acted, int dispatched, List<String> skippedNow, Instant databaseNow) {
        if (dispatched > acted) {
            throw new IllegalArgumentException("dispatched " + dispatched + " of " + acted);
        }
        cursorId = Math.max(cursorId, lastId);
        done += acted;
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

    /** How much of its count it has handled (acted on or skipped), 0 to 100; 100 for a job that counted nothing. */
    public int percent() {
        return total == 0 ? 100 : (int) Math.min(100, (done + skipped) * 100 / total);
    }

    /** What it has still to handle (act on or skip). */
    public long remaining() {
        return Math.max(0, total - done - skipped);
    }

    public Long id() { return id; }
    public Action action() { return action; }
    public String note() { return note; }
    public RootCause rootCause() { return rootCause; }
    public String requestedBy() { return requestedBy; }
    public String node() { return node; }
    public long cursorId() { return cursorId; }
    public String skippedDetail() { return skippedDetail; }
    public State state() { return state; }
    public int ratePerSecond() { return ratePerSecond; }
    public long total() { return total; }
    public long done() { return done; }
    public long redispatched() { return redispatched; }
    public long skipped() { return skipped; }
    public boolean cancelRequested() { return cancelRequested; }
    public String lastError() { return lastError; }
    public Instant createdAt() { return createdAt; }
    public Instant updatedAt() { return updatedAt; }
    public Instant finishedAt() { return finishedAt; }
}
