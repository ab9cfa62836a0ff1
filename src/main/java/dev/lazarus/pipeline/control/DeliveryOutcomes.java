package dev.lazarus.pipeline.control;

import jakarta.jms.Message;
import java.util.Optional;
import java.util.UUID;

/**
 * Where the processing path reports a delivery that does not end in its step's success, and asks what became of a
 * dispatch that stopped. The pipeline feature owns this interface and says what it saw; the dead-letter feature
 * implements it and owns everything that follows (which reason, the diagnostics, parking the message, a console
 * Retry becoming a requeue). So the dependency runs one way: {@code deadletter} builds on {@code pipeline}, and a
 * reader finds the processing path here and the dead-letter rules there.
 *
 * <p>Unless a method says otherwise it works in the consumer's transaction, which then acknowledges the message.
 */
public interface DeliveryOutcomes {

    /** Why a message can never execute, as the consumer sees it. */
    enum Refusal {
        /** Not a step message (no JSON, no run id, no step, no generation). */
        MALFORMED,
        /** A step (or a run of a pipeline) this queue does not serve. */
        NOT_SERVED_HERE,
        /** The database has no such run (after the message waited for it to become visible). */
        NO_SUCH_RUN,
        /** Not a dispatch the run is waiting for: it moved on, or stopped. */
        NOT_AWAITED
    }

    /**
     * If the message is a copy that Lazarus parked in a dead-letter queue and it came back (the Artemis console's
     * Retry) with a dead letter about the message on its own, it resumes nothing: it is settled here.
     *
     * @return whether it was such a message (and is settled)
     */
    boolean settledAsParkedOnItsOwn(Message message, String queue);

    /** Whether the message carries the mark of a message Lazarus parked in a dead-letter queue. */
    boolean cameOutOfDeadLetterQueue(Message message);

    /** The message can never execute: record why and park it, without burning retries or touching the run. */
    void refuse(Refusal refusal, String queue, StepMessage parsed, Message message, int delivery, String problem);

    /**
     * The step failed for good on this attempt (its last one, or a failure it declares permanent), in a
     * transaction of its own: the consumer's rolls back and the broker's redelivery is parked.
     *
     * @throws RuntimeException if it could not be recorded (the database is away, say)
     */
    void failedForGood(boolean declaredPermanent, StepDefinition step, StepMessage message, int attempt, String messageId,
                       Exception failure);

    /** The step had used its attempts before this delivery: stop the run and park the message. */
    void givenUp(StepDefinition step, StepMessage message, Message delivered, String messageId, int attempts, String detail);

    /**
     * In the ledger's transaction: the dead letter this message was parked with, if it holds this run (a console
     * Retry of a stopped step: it becomes a requeue, {@link #retriedFromConsole}).
     */
    Optional<Long> parkedWith(Message message, UUID runId);

    /** In the ledger's transaction: the dead letter that stopped this dispatch of the run's step, if there is one. */
    Optional<Long> deadLetterOfDispatch(UUID runId, long generation, String step);

    /** A copy of a dispatch that a dead letter explains arrived: the dead letter takes it (parked or noted). */
    void copyOfStoppedDispatch(long deadLetterId, Message message, String queue, String detail);

    /** A message parked with the dead letter holding its run came back from the console: the run is requeued. */
    void retriedFromConsole(long deadLetterId, UUID runId, Message message, StepDefinition step);
}
