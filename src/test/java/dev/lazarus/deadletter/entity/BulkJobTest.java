package dev.lazarus.deadletter.entity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class BulkJobTest {

    private final Instant now = Instant.parse("2026-11-22T10:00:00Z");

    private BulkJob job(BulkJob.Action action, String note) {
        return new BulkJob(action, note, DeadLetterFilter.ALL, 0, "alice", "node-1", now, now);
    }

    @Test
    void aDiscardOrAResolveNeedsANoteAndARequeueTakesNone() {
        for (BulkJob.Action closing : List.of(BulkJob.Action.DISCARD, BulkJob.Action.RESOLVE)) {
            assertThrows(IllegalArgumentException.class, () -> job(closing, null), closing + " without a note");
            assertThrows(IllegalArgumentException.class, () -> job(closing, "  "), closing + " with a blank note");
            assertEquals("the upstream sent garbage", job(closing, "the upstream sent garbage").note());
        }
        assertThrows(IllegalArgumentException.class, () -> job(BulkJob.Action.REQUEUE, "why"), "a requeue's note would go nowhere");
        assertEquals(null, job(BulkJob.Action.REQUEUE, null).note());
    }

    @Test
    void anActionIsNamedInTheApiByItsLowerCaseNameOnly() {
        assertEquals(BulkJob.Action.DISCARD, BulkJob.Action.named("discard"));
        assertEquals(BulkJob.Action.RESOLVE, BulkJob.Action.named("resolve"));
        assertEquals(BulkJob.Action.REQUEUE, BulkJob.Action.named("requeue"));
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class, () -> BulkJob.Action.named("DISCARD"));
        assertTrue(none.getMessage().contains("requeue, discard, resolve"), none.getMessage());
        assertThrows(IllegalArgumentException.class, () -> BulkJob.Action.named(null));
        assertFalse(BulkJob.Action.REQUEUE.closes());
        assertTrue(BulkJob.Action.DISCARD.closes() && BulkJob.Action.RESOLVE.closes());
    }

    @Test
    void aJobSelectsOpenDeadLettersOnlyWhateverItsAction() {
        for (BulkJob.Action action : BulkJob.Action.values()) {
            DeadLetterFilter closed = new DeadLetterFilter(null, DeadLetterStatus.DISCARDED, null, false, null, null, null, null, null, null);
            assertThrows(IllegalArgumentException.class, () -> new BulkJob(action, action.closes() ? "why" : null, closed, 0, "alice",
                    "node-1", now, now), action.apiName());
            assertTrue(job(action, action.closes() ? "why" : null).filter().openOnly(), action.apiName());
        }
    }

    @Test
    void itsProgressCountsWhatItDidAndSkippedAgainstWhatItCounted() {
        BulkJob job = job(BulkJob.Action.DISCARD, "why");
        job.counted(4);
        assertEquals(0, job.percent());
        assertEquals(4, job.remaining());
        job.progressed(12, 2, 0, List.of("11: dead letter 11 is already REQUEUED"), now.plusSeconds(1));
        assertEquals(2, job.done());
        assertEquals(1, job.skipped());
        assertEquals(12, job.cursorId());
        assertEquals(75, job.percent());
        assertEquals(1, job.remaining());
        assertEquals("11: dead letter 11 is already REQUEUED", job.skippedDetail());
        job.progressed(14, 1, 0, List.of(), now.plusSeconds(2));
        assertEquals(100, job.percent());
        assertEquals(0, job.remaining());
        assertEquals(now.plusSeconds(2), job.updatedAt(), "its sign of life");
        assertThrows(IllegalArgumentException.class, () -> job.progressed(15, 1, 2, List.of(), now), "more dispatched than done");
    }

    @Test
    void aJobThatCountedNothingIsDoneAndAFinishedOneStaysAsItEnded() {
        BulkJob job = job(BulkJob.Action.RESOLVE, "why");
        job.counted(0);
        assertEquals(100, job.percent());
        job.finish(BulkJob.State.INTERRUPTED, "node died", now);
        job.finish(BulkJob.State.COMPLETED, null, now.plusSeconds(1));
        assertEquals(BulkJob.State.INTERRUPTED, job.state(), "interrupted by another node: its worker does not complete it");
        assertThrows(IllegalStateException.class, () -> job.requestCancel(now));
    }
}
