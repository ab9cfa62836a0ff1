package dev.lazarus.events.entity;

import dev.lazarus.platform.entity.Text;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * One change an operator may want to hear of, before it has its id (the outbox row gives it one). Which fields are
 * present depends on the type: a run's events name the run, its pipeline and step, the dead letter and why; a step's
 * (held, resumed) name the pipeline and step, and a hold its cause, but no run.
 *
 * @param cause null when the change has none to tell (a requeue of a dead letter without an error, a resume)
 */
public record Event(EventType type, Instant at, UUID runId, String pipeline, String step, String reason, Cause cause,
                    Long deadLetterId, String who) {

    /** The longest error message an event carries: enough to recognise it; the dead letter keeps the whole. */
    public static final int MESSAGE_LENGTH = 500;

    public Event {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(at, "at");
    }

    /** What the failure was: its cause group's fingerprint, the exception's class and (bounded) message. */
    public record Cause(String fingerprint, String exceptionClass, String message) {

        public Cause {
            message = Text.truncate(message, MESSAGE_LENGTH);
        }

        public boolean isEmpty() {
            return fingerprint == null && exceptionClass == null && message == null;
        }
    }

    /** The fingerprint the webhooks coalesce by: the cause's, or the reason's for a change without one. */
    public String coalescingKey() {
        if (cause != null && cause.fingerprint() != null) {
            return cause.fingerprint();
        }
        return reason != null ? reason : "-";
    }
}
