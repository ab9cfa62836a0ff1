package dev.lazarus.pipeline.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.lazarus.platform.control.Problem;
import jakarta.ejb.EJBException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * A submission whose transaction fails without saying whether it committed leaves its dispatches to the dispatch
 * recovery: the database drill saw commits cut while the database stopped answer a heuristic hazard though they had
 * committed, and the runs they stored wait at their first step, never dispatched, until the sweeper dead-letters them.
 */
class SubmissionOutcomeTest {

    private final MovingClock clock = new MovingClock(Instant.parse("2026-11-27T22:28:32Z"));
    private final Dispatches dispatches = new Dispatches();

    SubmissionOutcomeTest() {
        dispatches.clock = clock;
    }

    @Test
    void aFailureThatMayHaveCommittedMarksWhatTheRecordingStoredAsMaybeUnsent() {
        Instant started;
        try (Dispatches.Recording recording = dispatches.recording()) {
            started = recording.startedAt();
            clock.advance(Duration.ofSeconds(1));
            assertThrows(EJBException.class, () -> Runs.committed(recording, () -> {
                throw new EJBException(new jakarta.transaction.HeuristicMixedException("ARJUNA016036: HEURISTIC_HAZARD"));
            }));
        }
        clock.advance(Duration.ofSeconds(10));
        assertEquals(started, dispatches.sentUntil(), "the recovery sends again what this incarnation recorded since the submission began");
    }

    @Test
    void aRefusedRequestRolledBackForSureAndLeavesNothingToSendAgain() {
        try (Dispatches.Recording recording = dispatches.recording()) {
            clock.advance(Duration.ofSeconds(1));
            assertThrows(Problem.class, () -> Runs.committed(recording, () -> {
                throw Problem.badRequest("no such pipeline");
            }));
        }
        clock.advance(Duration.ofSeconds(10));
        assertEquals(clock.instant(), dispatches.sentUntil());
    }

    @Test
    void aFailureThatRolledBackForSureRetiresNothing() {
        try (Dispatches.Recording recording = dispatches.recording()) {
            clock.advance(Duration.ofSeconds(1));
            assertThrows(EJBException.class, () -> Runs.committed(recording, () -> {
                throw new EJBException(new java.sql.SQLException("duplicate key value violates unique constraint", "23505"));
            }));
            assertThrows(EJBException.class, () -> Runs.committed(recording, () -> {
                throw new EJBException(new java.sql.SQLException("Connection refused", "08001"));
            }));
        }
        clock.advance(Duration.ofSeconds(10));
        assertEquals(clock.instant(), dispatches.sentUntil());
    }

    @Test
    void aSubmissionThatCommittedLeavesNothingToSendAgainOnceItsSendsAreDone() {
        try (Dispatches.Recording recording = dispatches.recording()) {
            assertEquals("run", Runs.committed(recording, () -> "run"));
        }
        clock.advance(Duration.ofSeconds(10));
        assertEquals(clock.instant(), dispatches.sentUntil());
    }

    private static final class MovingClock extends Clock {
        private Instant now;

        MovingClock(Instant now) {
            this.now = now;
        }

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }
}
