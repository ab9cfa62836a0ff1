package dev.lazarus.pipeline.control;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * One step of a pipeline: its handler, the queue its messages travel on, its retry policy and, optionally,
 * how long it may run without a heartbeat before the sweeper calls it stuck (the global default otherwise).
 */
public record StepDefinition(String pipeline, String name, String queue, Class<? extends StepHandler> handler,
                             RetryPolicy retryPolicy, Duration stuckAfter) {

    /** Prefix of every step's own dead-letter queue: {@code DLQ.<queue>}. */
    public static final String DEAD_LETTER_QUEUE_PREFIX = "DLQ.";

    public StepDefinition {
        Objects.requireNonNull(pipeline, "pipeline");
        requireName(name, "step name");
        requireName(queue, "queue");
        Objects.requireNonNull(handler, "handler");
        Objects.requireNonNull(retryPolicy, "retryPolicy");
        if (stuckAfter != null && (stuckAfter.isZero() || stuckAfter.isNegative())) {
            throw new IllegalArgumentException("stuckAfter must be positive, was " + stuckAfter);
        }
    }

    public String deadLetterQueue() {
        return DEAD_LETTER_QUEUE_PREFIX + queue;
    }

    public Optional<Duration> stuckAfterOverride() {
        return Optional.ofNullable(stuckAfter);
    }

    static void requireName(String value, String what) {
        if (value == null || !value.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,99}")) {
            throw new IllegalArgumentException(what + " must be 1-100 letters, digits, '.', '_' or '-': " + value);
        }
    }
}
