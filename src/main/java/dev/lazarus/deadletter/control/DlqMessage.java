package dev.lazarus.deadletter.control;

import dev.lazarus.pipeline.control.StepMessage;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;
import java.util.UUID;

/**
 * What the reconciler reads off a message in a dead-letter queue: enough to find the dead letter that
 * explains it, or to write one.
 *
 * @param deadLetterId set on messages Lazarus parked itself
 * @param runId        from the message properties, else from the body if it is a step message
 * @param message      the browsed message itself, to park again once it is explained
 */
public record DlqMessage(String messageId, Long deadLetterId, UUID runId, String step, Long generation, String body,
                         String problem, Message message) {

    public static DlqMessage of(Message message) throws JMSException {
        String body = message instanceof TextMessage text ? text.getText() : null;
        Long deadLetterId = message.propertyExists(DeadLetterQueues.DEAD_LETTER_ID)
                ? message.getLongProperty(DeadLetterQueues.DEAD_LETTER_ID) : null;
        UUID runId = null;
        String step = null;
        Long generation = null;
        String problem = null;
        if (message.propertyExists(StepMessage.RUN_ID) && message.propertyExists(StepMessage.GENERATION)) {
            try {
                runId = UUID.fromString(message.getStringProperty(StepMessage.RUN_ID));
                step = message.getStringProperty(StepMessage.STEP);
                generation = message.getLongProperty(StepMessage.GENERATION);
            } catch (IllegalArgumentException e) {
                problem = "its lazarusRunId property is not a UUID";
            }
        } else {
            try {
                StepMessage parsed = StepMessage.from(message);
                runId = parsed.runId();
                step = parsed.step();
                generation = parsed.generation();
            } catch (StepMessage.MalformedStepMessage e) {
                problem = e.getMessage();
            }
        }
        return new DlqMessage(message.getJMSMessageID(), deadLetterId, runId, step, generation, body, problem, message);
    }
}
