package dev.lazarus.deadletter.entity;

import java.util.List;

/** The investigation workflow of a dead letter. Open while pending or investigating. */
public enum DeadLetterStatus {
    PENDING,
    INVESTIGATING,
    REQUEUED,
    RESOLVED_MANUALLY,
    DISCARDED;

    /** The statuses of a dead letter still waiting for an operator, for queries. */
    public static final List<DeadLetterStatus> OPEN = List.of(PENDING, INVESTIGATING);

    public boolean isOpen() {
        return OPEN.contains(this);
    }
}
