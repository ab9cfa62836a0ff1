package dev.lazarus.sweep.control;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lazarus.pipeline.entity.RunState;
import dev.lazarus.sweep.control.StalenessRules.Health;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class StalenessRulesTest {

    private final Duration threshold = Duration.ofMinutes(10);

    @Test
    void healthIsWarningFromEightyPercentAndStaleFromTheThreshold() {
        assertEquals(Health.HEALTHY, StalenessRules.health(Duration.ofMinutes(7).plusSeconds(59), threshold));
        assertEquals(Health.WARNING, StalenessRules.health(Duration.ofMinutes(8), threshold));
        assertEquals(Health.WARNING, StalenessRules.health(Duration.ofMinutes(9).plusSeconds(59), threshold));
        assertEquals(Health.STALE, StalenessRules.health(Duration.ofMinutes(10), threshold));
    }

    @Test
    void inProgressIsTimedFromItsHeartbeatTheOtherStatesFromTheirLastChange() {
        Instant heartbeat = Instant.parse("2026-11-22T10:05:00Z");
        Instant changed = Instant.parse("2026-11-22T10:00:00Z");
        assertEquals(heartbeat, StalenessRules.clockStart(RunState.IN_PROGRESS, heartbeat, changed));
        assertEquals(changed, StalenessRules.clockStart(RunState.PENDING, null, changed));
        assertEquals(changed, StalenessRules.clockStart(RunState.RETRYING, heartbeat, changed));
    }

    /** Issue #21: a hold never dead-letters a run by itself, stuck or waiting; the clock starts when the step runs again. */
    @Test
    void aRunAtAStepThatRanAgainIsTimedFromThenWhateverItsState() {
        Instant heartbeat = Instant.parse("2026-11-22T10:05:00Z");
        Instant changed = Instant.parse("2026-11-22T10:00:00Z");
        Instant resumed = Instant.parse("2026-11-22T10:30:00Z");
        for (RunState state : java.util.List.of(RunState.IN_PROGRESS, RunState.PENDING, RunState.RETRYING)) {
            assertEquals(resumed, StalenessRules.clockStart(state, heartbeat, changed, resumed), state.name());
        }
        assertEquals(heartbeat, StalenessRules.clockStart(RunState.IN_PROGRESS, heartbeat, changed, Instant.parse("2026-11-22T09:00:00Z")),
                "a resume before its heartbeat changes nothing");
    }

    @Test
    void eachLiveStateHasItsReason() {
        assertEquals("STUCK_IN_PROGRESS", StalenessRules.Kind.of(RunState.IN_PROGRESS).orElseThrow().reason.name());
        assertEquals("WAITING_TOO_LONG", StalenessRules.Kind.of(RunState.PENDING).orElseThrow().reason.name());
        assertEquals("UNRECOVERED_ERROR", StalenessRules.Kind.of(RunState.RETRYING).orElseThrow().reason.name());
        assertEquals(true, StalenessRules.Kind.of(RunState.COMPLETED).isEmpty());
    }
}
