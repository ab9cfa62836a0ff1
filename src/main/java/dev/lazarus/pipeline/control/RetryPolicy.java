package dev.lazarus.pipeline.control;

import dev.lazarus.pipeline.entity.StepExecution;
import java.time.Duration;
import java.util.Objects;

/**
 * How a step is retried: at most {@code maxDeliveryAttempts} failed attempts, the first redelivery after
 * {@code redeliveryDelay}, each later one {@code multiplier} times longer, never longer than {@code maxDelay}.
 *
 * <p>This is the one source of truth: {@link BrokerTopology} turns it into the broker's address settings for
 * the step's queue (the backoff), and the consumer counts attempts against it. The broker's own limit is only
 * a backstop ({@link #brokerDeliveryLimit}): deliveries rolled back before the step ran (a server starting or
 * stopping) must not use the step's attempts, so Lazarus decides when they are used and parks the message.
 */
public record RetryPolicy(int maxDeliveryAttempts, Duration redeliveryDelay, double multiplier, Duration maxDelay) {

    public static final RetryPolicy DEFAULT = new RetryPolicy(5, Duration.ofSeconds(1), 2.0, Duration.ofSeconds(30));

    public RetryPolicy {
        if (maxDeliveryAttempts < 1) {
            throw new IllegalArgumentException("maxDeliveryAttempts must be at least 1, was " + maxDeliveryAttempts);
        }
        Objects.requireNonNull(redeliveryDelay, "redeliveryDelay");
        Objects.requireNonNull(maxDelay, "maxDelay");
        if (redeliveryDelay.isNegative() || maxDelay.isNegative()) {
            throw new IllegalArgumentException("delays must not be negative");
        }
        if (multiplier < 1.0) {
            throw new IllegalArgumentException("multiplier must be at least 1.0, was " + multiplier);
        }
        if (maxDelay.compareTo(redeliveryDelay) < 0) {
            throw new IllegalArgumentException("maxDelay " + maxDelay + " is shorter than redeliveryDelay " + redeliveryDelay);
        }
    }

    public static RetryPolicy attempts(int maxDeliveryAttempts) {
        return new RetryPolicy(maxDeliveryAttempts, DEFAULT.redeliveryDelay, DEFAULT.multiplier, DEFAULT.maxDelay);
    }

    public RetryPolicy delay(Duration first) {
        return new RetryPolicy(maxDeliveryAttempts, first, multiplier, maxDelay.compareTo(first) < 0 ? first : maxDelay);
    }

    public RetryPolicy multiplier(double factor) {
        return new RetryPolicy(maxDeliveryAttempts, redeliveryDelay, factor, maxDelay);
    }

    public RetryPolicy cap(Duration longest) {
        return new RetryPolicy(maxDeliveryAttempts, redeliveryDelay, multiplier, longest);
    }

    /** Whether a step with this many failed attempts has used them all. */
    public boolean exhaustedBy(int failures) {
        return failures >= maxDeliveryAttempts;
    }

    /** Whether a step with this many attempts that never finished (its server died mid-step) must be given up. */
    public boolean interruptedTooOften(int interrupted) {
        return interrupted >= maxDeliveryAttempts;
    }

    /**
     * The give-up rule, the one every path asks (the consumer's claim, the reconciler judging a message the broker moved
     * to a DLQ): a dispatch of a step is given up when its failed attempts reach the policy's, or when as many attempts
     * never finished (a step that keeps killing its server must not loop forever).
     */
    public boolean givesUp(StepExecution execution) {
        return exhaustedBy(execution.failures()) || interruptedTooOften(execution.interrupted());
    }

    /**
     * The broker's max-delivery-attempts: every attempt this policy allows (failed and interrupted), the
     * redelivery that is parked, and {@code spare} deliveries for ones rolled back before the step ran. Reached
     * only when Lazarus cannot take the message at all; the reconciler then says so (reason UNDELIVERABLE).
     */
    public int brokerDeliveryLimit(int spare) {
        return 2 * maxDeliveryAttempts + 1 + spare;
    }

    /** The broker's wait before delivery number {@code attempt} (2 for the first redelivery). */
    public Duration delayBefore(int attempt) {
        if (attempt <= 1) {
            return Duration.ZERO;
        }
        double millis = redeliveryDelay.toMillis() * Math.pow(multiplier, attempt - 2);
        return millis >= maxDelay.toMillis() ? maxDelay : Duration.ofMillis((long) millis);
    }

    /** The least time all redeliveries of a step that always fails take: what a test of the backoff may expect. */
    public Duration totalBackoff() {
        Duration total = Duration.ZERO;
        for (int attempt = 2; attempt <= maxDeliveryAttempts; attempt++) {
            total = total.plus(delayBefore(attempt));
        }
        return total;
    }
}
