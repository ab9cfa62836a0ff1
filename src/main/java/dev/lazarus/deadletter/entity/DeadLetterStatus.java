package dev.lazarus.deadletter.entity;

/** The investigation workflow of a dead letter. Open while pending or investigating. */
public enum DeadLetterStatus {
    PENDING,
    INVESTIGATING,
    REQUEUED,
    RESOLVED_MANUALLY,
    DISCARDED;

    public boolean isOpen() {
        return this == PENDING || this == INVESTIGATING;
    }
}
