package dev.lazarus.events.control;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a follower of {@code GET /api/events} may read without losing an event to a change that committed after a
 * younger one: reads stop before a gap in the ids while the event after it is recent, and the cursor stays before it.
 */
class EventsSettledTest {

    private static final Instant NOW = Instant.parse("2026-11-27T12:00:00Z");

    @Test
    void readsOnOverConsecutiveIds() {
        Events.Read read = Events.settled(99, List.of(at(100, 1), at(101, 1), at(102, 1)), NOW);
        assertEquals(List.of(100L, 101L, 102L), ids(read));
        assertEquals(102, read.last());
    }

    @Test
    void stopsBeforeARecentGapSoTheChangeStillUnderWayIsNotSkipped() {
        // 100 is readable; 101's change has not committed yet; 102's has
        Events.Read read = Events.settled(99, List.of(at(100, 1), at(102, 1)), NOW);
        assertEquals(List.of(100L), ids(read));
        assertEquals(100, read.last(), "the cursor stays before the gap: the next read asks for 101 again");
        Events.Read nothingYet = Events.settled(100, List.of(at(102, 1)), NOW);
        assertEquals(List.of(), ids(nothingYet));
        assertEquals(100, nothingYet.last());
    }

    @Test
    void aGapOlderThanTheSettleTimeIsAChangeThatRolledBackAndIsPassed() {
        long old = Events.SETTLE.plusSeconds(1).toSeconds();
        Events.Read read = Events.settled(99, List.of(at(100, old), at(102, old), at(103, 1)), NOW);
        assertEquals(List.of(100L, 102L, 103L), ids(read));
        assertEquals(103, read.last());
    }

    @Test
    void theFirstReadFromTheOldestPassesIdsPurgedLongAgo() {
        Events.Read read = Events.settled(0, List.of(at(5_000, 3_600), at(5_001, 1)), NOW);
        assertEquals(List.of(5_000L, 5_001L), ids(read));
    }

    @Test
    void nothingFoundKeepsTheCursor() {
        assertEquals(42, Events.settled(42, List.of(), NOW).last());
    }

    private static Events.Timed at(long id, long secondsAgo) {
        return new Events.Timed(new Events.Stored(id, "dead-lettered", "{}"), NOW.minus(Duration.ofSeconds(secondsAgo)));
    }

    private static List<Long> ids(Events.Read read) {
        return read.events().stream().map(Events.Stored::id).toList();
    }
}
