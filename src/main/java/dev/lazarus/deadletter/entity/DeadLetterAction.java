package dev.lazarus.deadletter.entity;

/** What happened to a dead letter, as kept in its audit trail. */
public enum DeadLetterAction {
    CREATED,
    INVESTIGATION_STARTED,
    NOTE,
    REQUEUED,
    RESOLVED,
    DISCARDED,
    /** An operator replaced the run's payload before requeueing it (the event's detail has both). */
    PAYLOAD_EDITED,
    /** An operator finished the stopped step with an output they supplied; the run went on to the next step. */
    STEP_COMPLETED_BY_HAND,
    /** An operator skipped the stopped step (one its pipeline declares skippable); the run went on without it. */
    STEP_SKIPPED,
    /** An operator started a new run of the same pipeline from it (the event's detail names the new run). */
    RECREATED,
    /** The reconciler no longer finds the message in the DLQ (purged or moved by hand). */
    DLQ_MESSAGE_MISSING,
    /** The reconciler finds the message again. */
    DLQ_MESSAGE_FOUND
}
