package dev.lazarus.pipeline.entity;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.Table;
import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/**
 * One delivery of a step that reached it (an attempt, counted as {@link StepExecution} counts them): its number within
 * the dispatch, the node that ran it, when it started and ended, and how ({@link AttemptOutcome}), with the failure's
 * class and message. Written with plain SQL by {@code StepAttempts} on the step's path (the hot path's insert rides in
 * the statement that records the step's success); read here, for the run's story. Only the last
 * {@code lazarus.attempts.kept-per-step} of a dispatch are kept.
 */
@Entity
@Table(name = "step_attempt")
@IdClass(StepAttempt.Key.class)
public class StepAttempt {

    /** The longest exception class name kept. */
    public static final int CLASS_LENGTH = 300;
    /** The longest failure message kept. */
    public static final int MESSAGE_LENGTH = 1000;
    /** The longest node name kept. */
    public static final int NODE_LENGTH = 100;

    @Id
    @Column(name = "run_id")
    private UUID runId;

    @Id
    private long generation;

    @Id
    private int attempt;

    @Column(name = "step_name", nullable = false, length = Run.NAME_LENGTH)
    private String stepName;

    @Column(length = NODE_LENGTH)
    private String node;

    @Column(name = "started_at", nullable = false)
    private Instant startedAt;

    @Column(name = "ended_at")
    private Instant endedAt;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false, length = AttemptOutcome.LENGTH)
    private AttemptOutcome outcome;

    @Column(name = "exception_class", length = CLASS_LENGTH)
    private String exceptionClass;

    @Column(length = MESSAGE_LENGTH)
    private String message;

    protected StepAttempt() {
        // for JPA
    }

    public UUID runId() { return runId; }
    public long generation() { return generation; }
    public int attempt() { return attempt; }
    public String stepName() { return stepName; }
    public String node() { return node; }
    public Instant startedAt() { return startedAt; }
    public Instant endedAt() { return endedAt; }
    public AttemptOutcome outcome() { return outcome; }
    public String exceptionClass() { return exceptionClass; }
    public String message() { return message; }

    /** How long it took, if it ended. */
    public Long tookMillis() {
        return endedAt == null ? null : Duration.between(startedAt, endedAt).toMillis();
    }

    /** The primary key: the dispatch and the attempt's number in it. */
    public static class Key implements Serializable {

        private static final long serialVersionUID = 1L;

        private UUID runId;
        private long generation;
        private int attempt;

        public Key() {
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && java.util.Objects.equals(runId, k.runId) && generation == k.generation && attempt == k.attempt;
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(runId, generation, attempt);
        }
    }
}
