package dev.lazarus.pipeline.control;

import dev.lazarus.platform.control.Destinations;
import dev.lazarus.platform.control.Tracing;
import dev.lazarus.platform.control.MessageProperties;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * The one place that sends step messages. It uses the container's JMSContext, so a send joins the caller's
 * JTA transaction: the message leaves only if the database work around it commits.
 */
@ApplicationScoped
public class StepDispatcher {

    /** On a copy sent back to its queue: the JMS message id of the message as it was first sent. */
    public static final String FIRST_MESSAGE_ID = "lazarusFirstMessageId";

    @Inject
    JMSContext jms;

    @Inject
    Destinations destinations;

    @Inject
    Tracing tracing;

    /** @param runTraceId the run's trace, which the message joins (see {@link Tracing#inject}); null if it has none */
    public void dispatch(StepDefinition step, StepMessage message, String runTraceId) {
        send(step, message, null, runTraceId);
    }

    /** A dispatch made by an operator's requeue: the message says how often, by whom and when. */
    public void redispatch(StepDefinition step, StepMessage message, Requeue provenance, String runTraceId) {
        send(step, message, provenance, runTraceId);
    }

    private void send(StepDefinition step, StepMessage message, Requeue provenance, String runTraceId) {
        try {
            TextMessage text = jms.createTextMessage(message.toJson());
            message.writeProperties(text);
            tracing.inject(text, runTraceId);
            if (provenance != null) {
                text.setIntProperty(StepMessage.REQUEUE_COUNT, provenance.count());
                text.setStringProperty(StepMessage.REQUEUED_BY, provenance.by());
                text.setStringProperty(StepMessage.REQUEUED_AT, provenance.at().toString());
            }
            jms.createProducer()
                    .setDeliveryMode(DeliveryMode.PERSISTENT)
                    .send(destinations.queue(jms, step.queue()), text);
        } catch (JMSException e) {
            throw new JMSRuntimeException("could not dispatch " + message.idempotencyKey() + " to " + step.queue()
                    + ": " + e.getMessage(), e.getErrorCode(), e);
        }
    }

    /**
     * Sends a copy of a delivered step message back to its queue, to arrive after {@code delay}, with its
     * properties and {@code extra} ones; in the caller's transaction, which acknowledges the original. The copy
     * starts with a fresh delivery count: waiting for the database costs none of the broker's deliveries.
     */
    public void sendBackLater(TextMessage original, String queue, Duration delay, Map<String, Object> extra) {
        try {
            TextMessage copy = jms.createTextMessage(original.getText());
            Map<String, Object> properties = MessageProperties.of(original, extra.keySet());
            properties.putAll(extra);
            MessageProperties.copyTo(copy, properties);
            if (!original.propertyExists(FIRST_MESSAGE_ID)) {
                // the copy gets an id of its own: it keeps the one its producer and the broker's log know it by
                copy.setStringProperty(FIRST_MESSAGE_ID, original.getJMSMessageID());
            }
            jms.createProducer()
                    .setDeliveryMode(DeliveryMode.PERSISTENT)
                    .setDeliveryDelay(delay.toMillis())
                    .send(destinations.queue(jms, queue), copy);
        } catch (JMSException e) {
            throw new JMSRuntimeException("could not send a message back to " + queue + ": " + e.getMessage(), e.getErrorCode(), e);
        }
    }

    /** The id of the message as it was first sent: a copy sent back to wait carries its original's id. */
    public static String firstMessageId(Message message) {
        try {
            String first = message.getStringProperty(FIRST_MESSAGE_ID);
            return first != null ? first : message.getJMSMessageID();
        } catch (JMSException | RuntimeException e) {
            return null;
        }
    }

    /** Whether the message is a copy sent back to its queue to wait ({@link #sendBackLater}). */
    public static boolean isCopySentBack(Message message) {
        try {
            return message.propertyExists(FIRST_MESSAGE_ID);
        } catch (JMSException e) {
            return true; // unreadable: take the careful way
        }
    }

    public record Requeue(int count, String by, Instant at) {
    }
}
