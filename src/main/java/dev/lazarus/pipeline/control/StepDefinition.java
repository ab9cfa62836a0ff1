package dev.lazarus.pipeline.control;

import java.util.Objects;

/**
 * One step of a pipeline: its handler, the queue its messages travel on, its retry policy and its
 * staleness thresholds (how long it may sit in each state before the sweeper gives up on it). A {@code skippable}
 * step is one an operator may skip when it is dead-lettered: the run goes on without it (the pipeline says whether
 * the steps after it can do without its output).
 */
public record StepDefinition(String pipeline, String name, String queue, Class<? extends StepHandler> handler,
                             RetryPolicy retryPolicy, Staleness staleness, boolean skippable) {

    /** Prefix of every step's own dead-letter queue: {@code DLQ.<queue>}. */
    public static final String DEAD_LETTER_QUEUE_PREFIX = "DLQ.";

    public StepDefinition {
        Objects.requireNonNull(pipeline, "pipeline");
        requireName(name, "step name");
        requireName(queue, "queue");
        Objects.requireNonNull(handler, "handler");
        Objects.requireNonNull(retryPolicy, "retryPolicy");
        Objects.requireNonNull(staleness, "staleness");
    }

    public String deadLetterQueue() {
        return DEAD_LETTER_QUEUE_PREFIX + queue;
    }

    static void requireName(String value, String what) {
        if (value == null || !value.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,99}")) {
            throw new IllegalArgumentException(what + " must be 1-100 letters, digits, '.', '_' or '-': " + value);
        }
    }
}
