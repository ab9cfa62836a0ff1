package dev.lazarus.pipeline.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

    private final RetryPolicy policy = RetryPolicy.attempts(5).delay(Duration.ofSeconds(1)).multiplier(2).cap(Duration.ofSeconds(5));

    @Test
    void delayGrowsByTheMultiplierUntilTheCap() {
        assertEquals(Duration.ZERO, policy.delayBefore(1));
        assertEquals(Duration.ofSeconds(1), policy.delayBefore(2));
        assertEquals(Duration.ofSeconds(2), policy.delayBefore(3));
        assertEquals(Duration.ofSeconds(4), policy.delayBefore(4));
        assertEquals(Duration.ofSeconds(5), policy.delayBefore(5));
    }

    @Test
    void totalBackoffAddsUpEveryRedelivery() {
        assertEquals(Duration.ofSeconds(1 + 2 + 4 + 5), policy.totalBackoff());
    }

    @Test
    void theStepIsExhaustedByItsFailuresOrByAsManyInterruptions() {
        assertFalse(policy.exhaustedBy(4));
        assertTrue(policy.exhaustedBy(5));
        assertFalse(policy.interruptedTooOften(4));
        assertTrue(policy.interruptedTooOften(5));
    }

    @Test
    void theBrokersOwnLimitIsABackstopBeyondEveryAttemptThePolicyAllows() {
        // 5 failures + 5 interruptions + the parked redelivery + 20 spare deliveries rolled back before the step ran
        assertEquals(31, policy.brokerDeliveryLimit(20));
    }

    @Test
    void rejectsPoliciesTheBrokerCannotHonour() {
        assertThrows(IllegalArgumentException.class, () -> RetryPolicy.attempts(0));
        assertThrows(IllegalArgumentException.class, () -> policy.multiplier(0.5));
        assertThrows(IllegalArgumentException.class, () -> policy.cap(Duration.ofMillis(10)));
        assertThrows(IllegalArgumentException.class, () -> policy.delay(Duration.ofSeconds(-1)));
    }

    @Test
    void aLongerFirstDelayRaisesTheCapWithIt() {
        assertEquals(Duration.ofMinutes(2), RetryPolicy.attempts(2).delay(Duration.ofMinutes(2)).maxDelay());
    }
}
