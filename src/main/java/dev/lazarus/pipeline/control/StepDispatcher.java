package dev.lazarus.pipeline.control;

import dev.lazarus.platform.control.Destinations;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.TextMessage;
import java.time.Instant;

/**
 * The one place that sends step messages. It uses the container's JMSContext, so a send joins the caller's
 * JTA transaction: the message leaves only if the database work around it commits.
 */
@ApplicationScoped
public class StepDispatcher {

    @Inject
    JMSContext jms;

    @Inject
    Destinations destinations;

    public void dispatch(StepDefinition step, StepMessage message) {
        send(step, message, null);
    }

    /** A dispatch made by an operator's requeue: the message says how often, by whom and when. */
    public void redispatch(StepDefinition step, StepMessage message, Requeue provenance) {
        send(step, message, provenance);
    }

    private void send(StepDefinition step, StepMessage message, Requeue provenance) {
        try {
            TextMessage text = jms.createTextMessage(message.toJson());
            message.writeProperties(text);
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

    public record Requeue(int count, String by, Instant at) {
    }
}
