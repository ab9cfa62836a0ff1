package dev.lazarus.pipeline.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.pipeline.entity.AttemptOutcome;
import dev.lazarus.pipeline.entity.StepAttempt;
import org.junit.jupiter.api.Test;

/** An attempt's failure is kept printable and within its columns, whatever a handler's exception says. */
class StepAttemptsTest {

    @Test
    void aMessageOfManyControlCharactersStaysWithinItsColumn() {
        String message = "card declined\n\tat com.victim.Service.charge(Service.java:42)\n" + "\n".repeat(5_000);
        StepAttempts.Ending ending = StepAttempts.Ending.failed(new IllegalStateException(message), false);
        assertEquals(AttemptOutcome.FAILED, ending.outcome());
        assertTrue(ending.message().length() <= StepAttempt.MESSAGE_LENGTH, "length " + ending.message().length());
        assertTrue(ending.message().startsWith("card declined\\u000A"), ending.message());
        assertTrue(ending.message().chars().noneMatch(Character::isISOControl));
    }

    @Test
    void aDeclaredPermanentFailureIsNonRetryable() {
        StepAttempts.Ending ending = StepAttempts.Ending.failed(new PermanentStepFailure("unsupported"), true);
        assertEquals(AttemptOutcome.NON_RETRYABLE, ending.outcome());
        assertEquals(PermanentStepFailure.class.getName(), ending.exceptionClass());
        assertEquals("unsupported", ending.message());
    }

    /**
     * A copy of a dispatch claimed while the first delivery still ran has its own row: the first one's end is written on
     * its own row (by number), never on the copy's, and only earlier numbers are taken for interrupted by a later claim.
     */
    @Test
    void anAttemptsEndIsWrittenOnItsOwnRowOnly() {
        assertTrue(StepAttempts.ENDED.contains("attempt = ?7"), StepAttempts.ENDED);
        assertTrue(StepAttempts.ENDED.contains("'" + AttemptOutcome.INTERRUPTED.name() + "'"),
                "its own end is the truth, whatever a later delivery took it for: " + StepAttempts.ENDED);
    }
}
