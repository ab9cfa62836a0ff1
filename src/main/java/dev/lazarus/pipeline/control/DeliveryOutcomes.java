package dev.lazarus.pipeline.control;

import jakarta.jms.JMSException;
import jakarta.jms.Message;

/**
 * Where the processing path hands over a delivery that may not run its step, or whose step failed for good: once per
 * delivery, after its claim ({@link Claim}) or after its handler. The pipeline feature owns this interface and says
 * what it saw; the dead-letter feature implements it and owns everything that follows (which reason, the diagnostics,
 * parking the message, a console Retry becoming a requeue). So the dependency runs one way: {@code deadletter} builds
 * on {@code pipeline}, and a reader finds the processing path here and the dead-letter rules there.
 *
 * <p>Each method works in a transaction of its own, which commits before the consumer acknowledges the message. A
 * consumer that dies between the two has its message redelivered, and the dead-letter side recognises what it already
 * did (a refusal, a parked copy, a console Retry's requeue) instead of doing it twice.
 */
public interface DeliveryOutcomes {

    /** Why a delivery may not run its step, as the consumer sees it. */
    enum Unrunnable {
        /** Not a step message (no JSON, no run id, no step, no generation). */
        MALFORMED,
        /** A step (or a run of a pipeline) this queue does not serve. */
        NOT_SERVED_HERE,
        /** The database has no such run (after the message waited for it to become visible). */
        NO_SUCH_RUN,
        /** Not a dispatch the run is waiting for: it stopped, or moved on without this dispatch's record. */
        NOT_AWAITED,
        /** The step had used its attempts before this delivery (failed, or interrupted too often): give up now. */
        ATTEMPTS_USED,
        /**
         * It came out of a dead-letter queue with the mark of a message Lazarus parked there (the Artemis console's
         * Retry): it may resume the run its dead letter holds, or be parked again; a mark that gives the dead-letter side
         * nothing to do leaves it to be claimed like any other delivery.
         */
        OUT_OF_DEAD_LETTER_QUEUE
    }

    /**
     * One delivery as the consumer saw it.
     *
     * @param step          the step the queue serves; null if it serves none
     * @param parsed        the step message; null if the message is none
     * @param deliveryCount the broker's delivery count (above 1: the message was delivered before, perhaps to a consumer
     *                      that died before acknowledging it)
     * @param attempts      the step's attempts so far ({@code ATTEMPTS_USED}), or the delivery's attempt (a failure)
     * @param detail        what the consumer found, for the dead letter
     */
    record Delivery(Message message, String queue, StepDefinition step, StepMessage parsed, int deliveryCount, int attempts,
                    String detail) {

        /** The id of the message as it was first sent (a copy sent back to wait keeps its original's). */
        public String messageId() {
            return StepDispatcher.firstMessageId(message);
        }

        /** Whether the broker delivered this message before (to a consumer that died, or rolled back). */
        public boolean redelivered() {
            try {
                return deliveryCount > 1 || message.getJMSRedelivered();
            } catch (JMSException e) {
                return deliveryCount > 1;
            }
        }
    }

    /** Whether the message carries the mark of a message Lazarus parked in a dead-letter queue. */
    boolean cameOutOfDeadLetterQueue(Message message);

    /**
     * Settles a delivery that may not run its step: records why and parks the message, notes it on the dead letter that
     * explains its dispatch, or requeues the run of a console Retry; without touching a live run's attempts.
     *
     * @return whether it is settled (the consumer acknowledges it); false only for {@code OUT_OF_DEAD_LETTER_QUEUE} whose
     * mark gives the dead-letter side nothing to do
     */
    boolean settle(Unrunnable why, Delivery delivery);

    /**
     * The step failed for good on this delivery (its last attempt, or a failure it declares permanent): the dead
     * letter is recorded and the run stopped; the consumer's delivery is then rolled back and its redelivery parked.
     *
     * @throws RuntimeException if it could not be recorded (the database is away, say)
     */
    void failedForGood(boolean declaredPermanent, Delivery delivery, Exception failure);
}
