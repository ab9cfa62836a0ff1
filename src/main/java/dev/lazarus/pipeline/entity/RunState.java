package dev.lazarus.pipeline.entity;

/** Where a run is. Only the live states may execute a step; the other two are terminal until an operator acts. */
public enum RunState {
    /**
     * A step message has been dispatched and waits for a consumer: no attempt of this dispatch has been recorded
     * (recording one moves the run to {@code IN_PROGRESS}; only a new dispatch brings it back here).
     */
    PENDING,
    /** A consumer is executing the current step (its heartbeat is on the run). */
    IN_PROGRESS,
    /** The current step failed and the broker will redeliver it after the step's backoff. */
    RETRYING,
    COMPLETED,
    /** Stopped with a dead letter that says why; only a requeue brings it back. */
    DEAD_LETTERED;

    public boolean isLive() {
        return this == PENDING || this == IN_PROGRESS || this == RETRYING;
    }
}
