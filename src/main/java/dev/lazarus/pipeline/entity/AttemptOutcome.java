package dev.lazarus.pipeline.entity;

/**
 * How one delivery of a step ended, as its {@link StepAttempt} keeps it. The consumer distinguishes these; nothing else
 * is guessed.
 */
public enum AttemptOutcome {
    /** Running now, or its end was not seen yet (its consumer may have died: a later delivery or a stop says so). */
    IN_PROGRESS,
    /** The handler succeeded and the step's record committed. */
    SUCCEEDED,
    /** The handler failed with a retryable failure (the broker redelivers, or the step gave up on its last attempt). */
    FAILED,
    /** The handler declared the failure permanent ({@code @NonRetryable}): dead-lettered at once. */
    NON_RETRYABLE,
    /** It ran past the step's stuck-after threshold without finishing, and the sweeper gave up on it. */
    TIMED_OUT,
    /**
     * It never finished: its server died or its transaction was rolled back by the container (a later delivery started,
     * or the step's call ended in an error), or the run was stopped while it ran (its outcome was discarded).
     */
    INTERRUPTED;

    /** The length of the column. */
    public static final int LENGTH = 20;
}
