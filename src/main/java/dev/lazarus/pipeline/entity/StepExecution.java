package dev.lazarus.pipeline.entity;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.FetchType;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;
import dev.lazarus.platform.entity.Text;
import java.time.Instant;
import java.util.Objects;

/**
 * One dispatch of one step of a run (a run, a step and a generation): its delivery attempts, timestamps,
 * heartbeat and last error. A requeue dispatches afresh with a new generation, so each requeue adds a row
 * and the history of earlier attempts is kept.
 *
 * <p>An attempt is counted when a delivery reaches the step, before the handler runs, so a consumer that dies
 * mid-step has still used an attempt. Deliveries the server rolled back before that (while it was starting or
 * stopping, or the database was away) are not attempts: the broker's count of them is kept next to the
 * attempts ({@code deliveries}), so the two counts can differ but never silently. {@code failures} are the
 * attempts whose handler failed; an attempt that neither failed nor finished was interrupted.
 */
@Entity
@Table(name = "step_execution")
public class StepExecution {

    @Id
    @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "step_execution_ids")
    @SequenceGenerator(name = "step_execution_ids", sequenceName = "step_execution_seq", allocationSize = 50)
    private Long id;

    @ManyToOne(fetch = FetchType.LAZY, optional = false)
    @JoinColumn(name = "run_id", nullable = false)
    private Run run;

    @Column(name = "step_name", nullable = false, length = 100)
    private String stepName;

    @Column(nullable = false)
    private long generation;

    @Column(nullable = false, length = 200)
    private String queue;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false, length = 20)
    private StepState state;

    @Column(nullable = false)
    private int attempts;

    @Column(nullable = false)
    private int failures;

    /** The broker's delivery count as last seen. */
    @Column(nullable = false)
    private int deliveries;

    @Column(name = "first_attempt_at")
    private Instant firstAttemptAt;

    @Column(name = "last_attempt_at")
    private Instant lastAttemptAt;

    @Column(name = "heartbeat_at")
    private Instant heartbeatAt;

    @Column(name = "finished_at")
    private Instant finishedAt;

    @Column(name = "last_error", length = 2000)
    private String lastError;

    protected StepExecution() {
        // for JPA
    }

    public StepExecution(Run run, String stepName, String queue) {
        this.run = Objects.requireNonNull(run, "run");
        this.stepName = Objects.requireNonNull(stepName, "stepName");
        this.queue = Objects.requireNonNull(queue, "queue");
        this.generation = run.generation();
        this.state = StepState.IN_PROGRESS;
    }

    /**
     * A delivery reached the step: one more attempt, whatever the broker counted.
     *
     * @param deliveryCount the broker's delivery count of this delivery
     */
    public void attemptStarted(int deliveryCount, Instant now) {
        attempts++;
        deliveries = Math.max(deliveries, deliveryCount);
        state = StepState.IN_PROGRESS;
        if (firstAttemptAt == null) {
            firstAttemptAt = now;
        }
        lastAttemptAt = now;
        heartbeatAt = now;
    }

    /** Attempts that started before now and neither failed nor finished: their server stopped mid-step. */
    public int interrupted() {
        return state == StepState.COMPLETED ? 0 : attempts - failures;
    }

    public void attemptFailed(String error) {
        failures++;
        state = StepState.RETRYING;
        lastError = Text.truncate(error, 2000);
    }

    /** The step was given up on; {@code lastAttemptFailed} if it is because its handler failed once more. */
    public void gaveUp(String error, boolean lastAttemptFailed) {
        if (lastAttemptFailed) {
            failures++;
        }
        state = StepState.FAILED;
        lastError = Text.truncate(error, 2000);
    }

    public void completed(Instant now) {
        state = StepState.COMPLETED;
        finishedAt = now;
    }

    public Long id() { return id; }
    public Run run() { return run; }
    public String stepName() { return stepName; }
    public long generation() { return generation; }
    public String queue() { return queue; }
    public StepState state() { return state; }
    public int attempts() { return attempts; }
    public int failures() { return failures; }
    public int deliveries() { return deliveries; }
    public Instant firstAttemptAt() { return firstAttemptAt; }
    public Instant lastAttemptAt() { return lastAttemptAt; }
    public Instant heartbeatAt() { return heartbeatAt; }
    public Instant finishedAt() { return finishedAt; }
    public String lastError() { return lastError; }
}
