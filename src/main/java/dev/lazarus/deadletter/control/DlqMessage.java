package dev.lazarus.deadletter.control;

import dev.lazarus.pipeline.control.StepMessage;
import dev.lazarus.platform.control.Brokers;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;
import java.util.UUID;

/**
 * What the reconciler reads off a message in a dead-letter queue: enough to find the dead letter that
 * explains it, or to write one.
 *
 * @param messageId     null if its producer sent it without one: then no selector can name it
 * @param deadLetterId  set on messages Lazarus parked itself
 * @param runId         from the message properties, else from the body if it is a step message
 * @param originalQueue the queue the broker (or Lazarus, parking it unexplained) moved it here from; null if it was
 *                      sent here directly
 * @param message       the browsed message itself, to park again once it is explained
 * @param broker        the broker it was found on, where it is taken from and parked again
 */
public record DlqMessage(String messageId, Long deadLetterId, UUID runId, String step, Long generation, String body,
                         String problem, String originalQueue, Message message, Brokers.Broker broker) {

    /** What the message says; one whose properties have the wrong types is read as malformed, never an error. */
    public static DlqMessage of(Message message, Brokers.Broker broker) throws JMSException {
        String messageId = message.getJMSMessageID();
        String body = null;
        String originalQueue = null;
        try {
            originalQueue = message.getStringProperty(DeadLetterQueues.ORIGINAL_QUEUE);
        } catch (JMSException | RuntimeException e) {
            // not a string: not the broker's
        }
        try {
            body = message instanceof TextMessage text ? text.getText() : null;
            Long deadLetterId = message.propertyExists(DeadLetterQueues.DEAD_LETTER_ID)
                    ? message.getLongProperty(DeadLetterQueues.DEAD_LETTER_ID) : null;
            UUID runId;
            String step;
            Long generation;
            if (message.propertyExists(StepMessage.RUN_ID) && message.propertyExists(StepMessage.GENERATION)) {
                runId = UUID.fromString(message.getStringProperty(StepMessage.RUN_ID));
                step = message.getStringProperty(StepMessage.STEP);
                generation = message.getLongProperty(StepMessage.GENERATION);
            } else {
                try {
                    StepMessage parsed = StepMessage.from(message);
                    runId = parsed.runId();
                    step = parsed.step();
                    generation = parsed.generation();
                } catch (StepMessage.MalformedStepMessage e) {
                    return new DlqMessage(messageId, deadLetterId, null, null, null, body, e.getMessage(), originalQueue, message, broker);
                }
            }
            return new DlqMessage(messageId, deadLetterId, runId, step, generation, body, null, originalQueue, message, broker);
        } catch (JMSException | RuntimeException e) {
            return new DlqMessage(messageId, null, null, null, null, body,
                    "its Lazarus properties cannot be read (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")", originalQueue,
                    message, broker);
        }
    }
}
