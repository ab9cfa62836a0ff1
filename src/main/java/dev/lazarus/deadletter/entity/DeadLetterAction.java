package dev.lazarus.deadletter.entity;

/** What happened to a dead letter, as kept in its audit trail. */
public enum DeadLetterAction {
    CREATED,
    INVESTIGATION_STARTED,
    NOTE,
    REQUEUED,
    RESOLVED,
    DISCARDED,
    /** The reconciler no longer finds the message in the DLQ (purged or moved by hand). */
    DLQ_MESSAGE_MISSING,
    /** The reconciler finds the message again. */
    DLQ_MESSAGE_FOUND
}
