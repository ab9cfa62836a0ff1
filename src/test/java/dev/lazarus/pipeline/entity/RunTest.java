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
        assertFalse(run.accepts("b", 1), "every dispatch has its own generation");
        assertTrue(run.accepts("b", 2));
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
    void attemptsAreCountedByLazarusNotTakenFromTheBrokersDeliveryCount() {
        StepExecution step = new StepExecution(run, "a", "q.a");
        step.attemptStarted(4, now); // three deliveries were rolled back before the step ran (a server starting)
        assertEquals(1, step.attempts(), "deliveries that never reached the step used no attempt");
        assertEquals(4, step.deliveries(), "the broker's count is kept beside it");
        step.attemptFailed("boom");
        step.attemptStarted(5, now);
        assertEquals(2, step.attempts());
        assertEquals(1, step.failures());
        assertEquals(1, step.interrupted(), "attempt 2 is running: it has neither failed nor finished");
        step.attemptStarted(6, now); // the server died during attempt 2
        assertEquals(2, step.interrupted());
    }

    @Test
    void aStepGivenUpAfterItsHandlerFailedCountsThatFailure() {
        StepExecution step = new StepExecution(run, "a", "q.a");
        step.attemptStarted(1, now);
        step.gaveUp("RETRIES_EXHAUSTED: boom", true);
        assertEquals(1, step.failures());
        assertEquals(StepState.FAILED, step.state());
        StepExecution swept = new StepExecution(run, "b", "q.b");
        swept.attemptStarted(1, now);
        swept.gaveUp("STUCK_IN_PROGRESS", false);
        assertEquals(0, swept.failures(), "a sweep is not a failure of the handler");
    }
}
