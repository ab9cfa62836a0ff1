package dev.lazarus.deadletter.entity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class DeadLetterTest {

    private final Instant now = Instant.parse("2026-11-22T10:00:00Z");

    @Test
    void requeueClosesItAndRecordsWhoAndWhen() {
        DeadLetter deadLetter = new DeadLetter(DeadLetterReason.RETRIES_EXHAUSTED, "q", "DLQ.q", "consumer", now)
                .forRun(UUID.randomUUID(), "p", "a", 1L);
        assertTrue(deadLetter.canBeRequeued());
        deadLetter.requeued("alice", "MOVED_FROM_DLQ", now);
        assertEquals(DeadLetterStatus.REQUEUED, deadLetter.status());
        assertEquals("alice", deadLetter.requeuedBy());
        assertFalse(deadLetter.isOpen());
        assertThrows(IllegalStateException.class, () -> deadLetter.requeued("bob", "MOVED_FROM_DLQ", now));
    }

    @Test
    void aMessageThatNeverBelongedToARunCannotBeRequeued() {
        DeadLetter deadLetter = new DeadLetter(DeadLetterReason.MALFORMED_MESSAGE, "q", "DLQ.q", "consumer", now);
        assertFalse(deadLetter.canBeRequeued());
    }

    @Test
    void longErrorsAreBoundedNotRefused() {
        DeadLetter deadLetter = new DeadLetter(DeadLetterReason.RETRIES_EXHAUSTED, "q", "DLQ.q", "consumer", now)
                .withError("E", "x".repeat(10_000), "y".repeat(50_000), 3);
        assertEquals(4000, deadLetter.errorMessage().length());
        assertEquals(16000, deadLetter.stackTrace().length());
    }

    @Test
    void everyReasonHasALabelAndAPriority() {
        for (DeadLetterReason reason : DeadLetterReason.values()) {
            assertFalse(reason.label().isBlank(), reason.name());
            assertTrue(reason.priority() > 0, reason.name());
        }
    }
}
