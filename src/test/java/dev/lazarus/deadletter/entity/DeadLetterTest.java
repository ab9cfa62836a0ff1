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
    void aRunStoppedByHandHoldsItAndItsTrailStartsWithWhoStoppedItAndWhy() {
        DeadLetter deadLetter = new DeadLetter(DeadLetterReason.MANUAL, "q", "DLQ.q", "operator", "alice", "the index is down", now)
                .forRun(UUID.randomUUID(), "p", "a", 3L);
        assertTrue(deadLetter.holdsRun(), "a stop holds its run");
        assertTrue(deadLetter.canBeRequeued(), "and a requeue brings it back");
        DeadLetterEvent created = deadLetter.events().get(0);
        assertEquals(DeadLetterAction.CREATED, created.action());
        assertEquals("alice", created.actor());
        assertEquals("the index is down", created.note());
        assertEquals("operator", deadLetter.detectedBy());
        assertThrows(IllegalArgumentException.class, () -> new DeadLetter(DeadLetterReason.MANUAL, "q", "DLQ.q", "operator", " ", "why", now),
                "a dead letter made by hand names who made it");
    }

    @Test
    void investigationMovesPendingToInvestigatingToResolvedAndKeepsEveryStepInTheTrail() {
        DeadLetter deadLetter = new DeadLetter(DeadLetterReason.RETRIES_EXHAUSTED, "q", "DLQ.q", "consumer", now)
                .forRun(UUID.randomUUID(), "p", "a", 1L);
        deadLetter.startInvestigation("alice", null, now.plusSeconds(60));
        deadLetter.addNote("bob", "the parser chokes on BOMs", now.plusSeconds(120));
        deadLetter.resolve("alice", "fixed the file by hand", now.plusSeconds(600));

        assertEquals(DeadLetterStatus.RESOLVED_MANUALLY, deadLetter.status());
        assertEquals("alice", deadLetter.closedBy());
        assertEquals(java.time.Duration.ofSeconds(600), deadLetter.timeToResolution());
        assertEquals(java.util.List.of(DeadLetterAction.CREATED, DeadLetterAction.INVESTIGATION_STARTED, DeadLetterAction.NOTE,
                DeadLetterAction.RESOLVED), deadLetter.events().stream().map(DeadLetterEvent::action).toList());
        assertEquals("bob", deadLetter.events().get(2).actor());
        assertThrows(IllegalStateException.class, () -> deadLetter.discard("carol", "too late", now));
        deadLetter.addNote("carol", "notes are fine after closing", now);
    }

    @Test
    void closingNeedsANoteAndOnlyPendingCanBeTakenIntoInvestigation() {
        DeadLetter deadLetter = new DeadLetter(DeadLetterReason.RETRIES_EXHAUSTED, "q", "DLQ.q", "consumer", now);
        assertThrows(IllegalArgumentException.class, () -> deadLetter.discard("alice", " ", now));
        assertThrows(IllegalArgumentException.class, () -> deadLetter.addNote("alice", "x".repeat(4001), now));
        assertThrows(IllegalArgumentException.class, () -> deadLetter.addNote(null, "anonymous", now));
        deadLetter.startInvestigation("alice", null, now);
        assertThrows(IllegalStateException.class, () -> deadLetter.startInvestigation("bob", null, now));
        assertTrue(deadLetter.isOpen());
    }

    @Test
    void reconcilerFlagsAVanishedMessageOnceAndClearsItWhenItIsBack() {
        DeadLetter deadLetter = new DeadLetter(DeadLetterReason.RETRIES_EXHAUSTED, "q", "DLQ.q", "consumer", now);
        deadLetter.dlqMessagePresent(false, now);
        deadLetter.dlqMessagePresent(false, now);
        assertTrue(deadLetter.dlqMessageMissing());
        deadLetter.dlqMessagePresent(true, now);
        assertFalse(deadLetter.dlqMessageMissing());
        assertEquals(java.util.List.of(DeadLetterAction.CREATED, DeadLetterAction.DLQ_MESSAGE_MISSING, DeadLetterAction.DLQ_MESSAGE_FOUND),
                deadLetter.events().stream().map(DeadLetterEvent::action).toList());
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
    void itsCauseIsComputedWhenItIsRecordedFromTheExceptionAndStored() {
        IllegalStateException failure = new IllegalStateException("declined\n\tat com.victim.Service.charge(Service.java:42)",
                new java.io.IOException("down"));
        java.io.StringWriter text = new java.io.StringWriter();
        failure.printStackTrace(new java.io.PrintWriter(text));
        DeadLetter deadLetter = new DeadLetter(DeadLetterReason.RETRIES_EXHAUSTED, "q", "DLQ.q", "consumer", now)
                .withError(failure.getClass().getName(), failure.getMessage(), text.toString(), StackSummary.of(failure), 3);
        assertEquals("dev.lazarus.deadletter.entity.DeadLetterTest.itsCauseIsComputedWhenItIsRecordedFromTheExceptionAndStored",
                deadLetter.topFrame(), "where it was thrown, not what its message says");
        assertEquals("java.io.IOException", deadLetter.rootCause());
        assertEquals(Fingerprint.RULE, deadLetter.fingerprintRule());
        DeadLetter fromText = new DeadLetter(DeadLetterReason.RETRIES_EXHAUSTED, "q", "DLQ.q", "consumer", now)
                .withError(failure.getClass().getName(), failure.getMessage(), text.toString(), 3);
        assertEquals(deadLetter.fingerprint(), fromText.fingerprint(), "its text, read by the rule for stored ones, gives the same");
        assertEquals(deadLetter.topFrame(), fromText.topFrame());
    }

    @Test
    void everyReasonHasALabelAndAPriority() {
        for (DeadLetterReason reason : DeadLetterReason.values()) {
            assertFalse(reason.label().isBlank(), reason.name());
            assertTrue(reason.priority() > 0, reason.name());
        }
    }
}
