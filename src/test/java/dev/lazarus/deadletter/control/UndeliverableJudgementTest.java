package dev.lazarus.deadletter.control;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lazarus.pipeline.control.RetryPolicy;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Reference, lazarus.reconcile.undeliverable-after: a message that looks like a run's live dispatch, found in its DLQ, is
 * judged only once the dispatch has been still for longer than its step's longest redelivery delay plus the grace,
 * because the broker holds the dispatch's own message, scheduled and counted nowhere, for up to that delay.
 */
class UndeliverableJudgementTest {

    private static final Instant LAST_ATTEMPT = Instant.parse("2026-11-25T03:00:00Z");
    private static final Duration GRACE = Duration.ofMinutes(2);

    @Test
    void aStepThatBacksOffForFiveMinutesIsNotJudgedThreeMinutesIntoItsWait() {
        RetryPolicy fiveMinutes = RetryPolicy.attempts(5).delay(Duration.ofMinutes(1)).cap(Duration.ofMinutes(5));

        Instant judgeable = UnexplainedMessages.judgeableAt(LAST_ATTEMPT, fiveMinutes, GRACE);

        assertEquals(LAST_ATTEMPT.plus(Duration.ofMinutes(7)), judgeable);
    }

    @Test
    void aStepThatBacksOffBrieflyIsJudgedAfterTheGrace() {
        RetryPolicy twoSeconds = RetryPolicy.attempts(4).delay(Duration.ofMillis(500)).cap(Duration.ofSeconds(2));

        assertEquals(LAST_ATTEMPT.plus(GRACE).plusSeconds(2), UnexplainedMessages.judgeableAt(LAST_ATTEMPT, twoSeconds, GRACE));
    }
}
