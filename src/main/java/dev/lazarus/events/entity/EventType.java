package dev.lazarus.events.entity;

import java.util.Arrays;
import java.util.Optional;

/** What happened, by the name an event carries in its {@code type} field. */
public enum EventType {
    DEAD_LETTERED("dead-lettered"),
    REQUEUED("requeued"),
    RESOLVED("resolved"),
    DISCARDED("discarded"),
    STOPPED("stopped"),
    HELD("held"),
    RESUMED("resumed");

    private final String wireName;

    EventType(String wireName) {
        this.wireName = wireName;
    }

    /** The name in the JSON, the header {@code X-Lazarus-Event} and the webhooks' type filters. */
    public String wireName() {
        return wireName;
    }

    public static Optional<EventType> ofWireName(String name) {
        return Arrays.stream(values()).filter(type -> type.wireName.equals(name)).findFirst();
    }
}
