package dev.lazarus.deadletter.entity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The root cause a resolve may record: the five names, in any case, or none; anything else refused with the five. */
class RootCauseTest {

    @Test
    void aRequestNamesOneOfTheFiveInAnyCaseOrNone() {
        assertEquals(RootCause.BAD_DATA, RootCause.named("BAD_DATA"));
        assertEquals(RootCause.CODE_DEFECT, RootCause.named("code_defect"));
        assertNull(RootCause.named(null));
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> RootCause.named("COSMIC_RAYS"));
        assertTrue(refused.getMessage().contains("CODE_DEFECT, BAD_DATA, DEPENDENCY, CONFIGURATION, OTHER"), refused.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RootCause.named(""));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RootCause.named("x".repeat(5000))).getMessage().length() < 200);
    }

    @Test
    void aResolveKeepsItsRootCauseAndSaysSoInItsAuditEntry() {
        Instant now = Instant.parse("2026-11-27T12:00:00Z");
        DeadLetter deadLetter = new DeadLetter(DeadLetterReason.RETRIES_EXHAUSTED, "q", "DLQ.q", "consumer", now);
        deadLetter.resolve("alice", "the service is back", RootCause.DEPENDENCY, now.plusSeconds(60));

        assertEquals(RootCause.DEPENDENCY, deadLetter.resolvedRootCause());
        DeadLetterEvent resolved = deadLetter.events().get(deadLetter.events().size() - 1);
        assertEquals(DeadLetterAction.RESOLVED, resolved.action());
        assertEquals("{\"rootCause\":\"DEPENDENCY\"}", resolved.detail());
    }

    @Test
    void aResolveWithoutOneRecordsNoneAndADiscardNeverDoes() {
        Instant now = Instant.parse("2026-11-27T12:00:00Z");
        DeadLetter resolved = new DeadLetter(DeadLetterReason.MANUAL, "q", "DLQ.q", "consumer", now);
        resolved.resolve("alice", "done", now);
        assertNull(resolved.resolvedRootCause());
        assertNull(resolved.events().get(resolved.events().size() - 1).detail());
    }

    @Test
    void onlyABulkResolveTakesARootCause() {
        Instant now = Instant.parse("2026-11-27T12:00:00Z");
        BulkJob resolve = new BulkJob(BulkJob.Action.RESOLVE, "the service is back", DeadLetterFilter.ALL.open(), 0, "alice", "node", now, now)
                .withRootCause(RootCause.DEPENDENCY);
        assertEquals(RootCause.DEPENDENCY, resolve.rootCause());
        assertThrows(IllegalArgumentException.class, () -> new BulkJob(BulkJob.Action.DISCARD, "why", DeadLetterFilter.ALL.open(), 0, "alice",
                "node", now, now).withRootCause(RootCause.OTHER));
        assertNull(new BulkJob(BulkJob.Action.REQUEUE, null, DeadLetterFilter.ALL.open(), 0, "alice", "node", now, now).withRootCause(null).rootCause());
    }
}
