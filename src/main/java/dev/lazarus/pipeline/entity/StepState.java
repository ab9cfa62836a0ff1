package dev.lazarus.pipeline.entity;

public enum StepState {
    IN_PROGRESS,
    /** The last attempt failed; the broker redelivers after the backoff. */
    RETRYING,
    COMPLETED,
    /** The step will not run again for this generation (its run was dead-lettered). */
    FAILED
}
