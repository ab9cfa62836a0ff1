package dev.lazarus.deadletter.control;

import dev.lazarus.platform.entity.Text;

import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.deadletter.entity.StackSummary;
import dev.lazarus.pipeline.control.StepDefinition;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Objects;
import java.util.UUID;

/**
 * What a detection path knows when it gives up on a run or a message. Every path builds one of these and
 * hands it to {@link DeadLetterService}; nothing else creates dead letters.
 *
 * @param stack   what the exception's own stack trace says, if the report is about one ({@code stackTrace} is its text,
 *                cut to a size; its fingerprint is taken from this, see {@link StackSummary})
 * @param fence   whether messages already in flight for the run must become stale (see {@code Run.deadLetter})
 * @param detectedBy which path saw it: {@code consumer}, {@code sweeper}, {@code reconciler} or {@code operator}
 * @param byHand  who made it and why, when a person did (an operator stopping a run); null for a detection path
 */
public record DeadLetterReport(DeadLetterReason reason, String queue, UUID runId, String pipeline, String step,
                               Long generation, String messageId, String messageBody, int attempts,
                               String exceptionClass, String errorMessage, String stackTrace, StackSummary stack,
                               boolean fence, String detectedBy, ByHand byHand) {

    /** Stack traces are kept to this many characters: enough for the cause, bounded for the database. */
    static final int STACK_TRACE_LIMIT = 8000;

    public static final String CONSUMER = "consumer";
    /** The actor of what happens through the Artemis console, which Lazarus only sees the effect of. */
    public static final String CONSOLE = "artemis-console";
    public static final String SWEEPER = "sweeper";
    public static final String RECONCILER = "reconciler";
    /** An operator, by hand: the dead letter's audit trail names which one ({@link ByHand}). */
    public static final String OPERATOR = "operator";

    /** Who made a dead letter by hand, and why: its audit trail starts with them. */
    public record ByHand(String operator, String note) {
        public ByHand {
            Objects.requireNonNull(operator, "operator");
            Objects.requireNonNull(note, "note");
        }
    }

    public DeadLetterReport {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(detectedBy, "detectedBy");
    }

    /** A handler failed for the last time (or declared its failure permanent). */
    public static DeadLetterReport stepFailed(DeadLetterReason reason, StepDefinition step, UUID runId, long generation,
                                              String messageId, int attempts, Throwable failure) {
        return new DeadLetterReport(reason, step.queue(), runId, step.pipeline(), step.name(), generation, messageId,
                null, attempts, failure.getClass().getName(), failure.getMessage(), stackTraceOf(failure),
                StackSummary.of(failure), false, CONSUMER, null);
    }

    /** The step had used its attempts before this delivery (failed, or interrupted too often): give up now. */
    public static DeadLetterReport stepGivenUp(StepDefinition step, UUID runId, long generation, String messageId,
                                               int attempts, String problem) {
        return new DeadLetterReport(DeadLetterReason.RETRIES_EXHAUSTED, step.queue(), runId, step.pipeline(), step.name(),
                generation, messageId, null, attempts, null, problem, null, null, false, CONSUMER, null);
    }

    /**
     * A message that can never execute: not a step message, an unknown step, a run that does not exist, a
     * dispatch the run is not waiting for. About the message alone: the run it may name is left as it is.
     */
    public static DeadLetterReport messageRejected(DeadLetterReason reason, String queue, UUID runId, String step,
                                                   Long generation, String messageId, String body, int attempts,
                                                   String problem, String detectedBy) {
        if (!reason.aboutMessage()) {
            throw new IllegalArgumentException(reason + " is not about a message on its own");
        }
        return new DeadLetterReport(reason, queue, runId, null, step, generation, messageId, body, attempts,
                null, problem, null, null, false, detectedBy, null);
    }

    /** The sweeper gave up on a run that stopped making progress. */
    public static DeadLetterReport runStalled(DeadLetterReason reason, StepDefinition step, UUID runId,
                                              long generation, int attempts, String problem) {
        return new DeadLetterReport(reason, step.queue(), runId, step.pipeline(), step.name(), generation, null,
                null, attempts, null, problem, null, null, true, SWEEPER, null);
    }

    /**
     * An operator stopped a live run by hand: the run is fenced like a swept one (a handler still running, a message
     * waiting for its delivery or redelivery, must never move it on), and the dead letter keeps who and why.
     */
    public static DeadLetterReport stoppedByHand(StepDefinition step, UUID runId, long generation, int attempts, String operator,
                                                 String note) {
        return new DeadLetterReport(DeadLetterReason.MANUAL, step.queue(), runId, step.pipeline(), step.name(), generation, null,
                null, attempts, null, "stopped by " + operator + ": " + note, null, null, true, OPERATOR, new ByHand(operator, note));
    }

    /** Whether this report is about the run's current dispatch (reports without a generation always are). */
    public boolean concerns(long runGeneration) {
        return generation == null || generation == runGeneration;
    }

    /** Whether the handler itself failed on the attempt that gave up (rather than the step never finishing). */
    public boolean lastAttemptFailed() {
        return CONSUMER.equals(detectedBy) && exceptionClass != null;
    }

    public String deadLetterQueue() {
        return StepDefinition.DEAD_LETTER_QUEUE_PREFIX + queue;
    }

    static String stackTraceOf(Throwable failure) {
        StringWriter trace = new StringWriter();
        failure.printStackTrace(new PrintWriter(trace));
        return Text.truncate(trace.toString(), STACK_TRACE_LIMIT);
    }
}
