package dev.lazarus.pipeline.entity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class RunTest {

    private final Instant now = Instant.parse("2026-11-22T10:00:00Z");
    private final Run run = new Run("p", "a", "{}", now);

    @Test
    void acceptsOnlyItsCurrentStepAtItsCurrentGeneration() {
        assertTrue(run.accepts("a", 1));
        assertFalse(run.accepts("b", 1));
        assertFalse(run.accepts("a", 2));
        run.advanceTo("b", "{}", now);
        assertFalse(run.accepts("a", 1), "a redelivered message for a finished step is stale");
        assertTrue(run.accepts("b", 1));
    }

    @Test
    void inlineDeadLetterKeepsTheGenerationSoTheDlqMessageStillBelongsToTheRun() {
        run.attemptStarted(now);
        run.deadLetter(false, now);
        assertEquals(RunState.DEAD_LETTERED, run.state());
        assertEquals(1, run.generation());
        assertFalse(run.accepts("a", 1), "a dead-lettered run executes nothing");
    }

    @Test
    void sweptRunFencesMessagesAlreadyInFlight() {
        run.attemptStarted(now);
        run.deadLetter(true, now);
        assertEquals(2, run.generation());
    }

    @Test
    void requeueResumesAtTheSameStepWithANewGeneration() {
        run.deadLetter(false, now);
        long generation = run.requeue(now);
        assertEquals(2, generation);
        assertEquals(1, run.requeueCount());
        assertEquals(RunState.PENDING, run.state());
        assertTrue(run.accepts("a", 2));
        assertFalse(run.accepts("a", 1), "the old message can never execute");
    }

    @Test
    void onlyADeadLetteredRunCanBeRequeuedAndATerminalRunCannotMove() {
        assertThrows(IllegalStateException.class, () -> run.requeue(now));
        run.complete("{}", now);
        assertThrows(IllegalStateException.class, () -> run.attemptStarted(now));
        assertThrows(IllegalStateException.class, () -> run.deadLetter(false, now));
    }

    @Test
    void deadLetteringTwiceChangesNothing() {
        run.deadLetter(true, now);
        run.deadLetter(true, now);
        assertEquals(2, run.generation());
    }

    @Test
    void attemptsFollowTheBrokersDeliveryCountAndNeverGoBackwards() {
        StepExecution step = new StepExecution(run, "a", "q.a");
        assertTrue(step.attemptStarted(1, now));
        assertTrue(step.attemptStarted(3, now), "a consumer that died mid-step still used attempt 2");
        assertEquals(3, step.attempts());
        assertFalse(step.attemptStarted(1, now), "a broker that lost its count is reported");
        assertEquals(4, step.attempts());
    }
}
