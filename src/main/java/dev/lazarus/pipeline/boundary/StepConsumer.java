package dev.lazarus.pipeline.boundary;

import dev.lazarus.pipeline.control.StepMessage;
import dev.lazarus.pipeline.control.StepProcessor;
import dev.lazarus.platform.control.Tracing;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import jakarta.annotation.Resource;
import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;
import jakarta.ejb.MessageDrivenContext;
import jakarta.inject.Inject;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The base of every step queue's message-driven bean. A pipeline's consumer is only this class plus its
 * activation config naming the queue:
 *
 * <pre>{@code
 * @MessageDriven(activationConfig = {
 *     @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue"),
 *     @ActivationConfigProperty(propertyName = "destination", propertyValue = MyPipeline.FIRST_QUEUE),
 *     @ActivationConfigProperty(propertyName = "useJNDI", propertyValue = "false"),
 *     @ActivationConfigProperty(propertyName = "maxSession", propertyValue = "${lazarus.consumer.max-session:8}")})
 * public class FirstStepConsumer extends StepConsumer {
 * }
 * }</pre>
 *
 * It delegates and never swallows a failure: when the step must be retried it marks the transaction for
 * rollback, the broker redelivers with the step's backoff, and after the last attempt moves the message to
 * the step's dead-letter queue. Rolling back instead of throwing keeps the bean instance and the log clean.
 */
public abstract class StepConsumer implements MessageListener {

    private static final Logger LOG = Logger.getLogger(StepConsumer.class.getName());

    @Inject
    StepProcessor processor;

    @Inject
    Tracing tracing;

    @Resource
    MessageDrivenContext context;

    /** The queue this consumer serves, from its activation config (a message's own destination is not trusted). */
    private String queue;

    @Override
    public void onMessage(Message message) {
        // one span per delivery, the child of the span that dispatched it: the run's trace goes on through its steps
        Span span = tracing.consume(message, queue(), property(message, StepMessage.RUN_ID), property(message, StepMessage.STEP));
        StepProcessor.Outcome outcome;
        try (Scope scope = span.makeCurrent()) {
            outcome = processor.process(message, queue());
        } catch (RuntimeException e) {
            // the broker or the database failed under the consumer (parking, a requeue): nothing is lost, the
            // broker redelivers and it is decided again
            LOG.log(Level.WARNING, "Could not settle a delivery; the broker redelivers it", e);
            span.recordException(e);
            outcome = StepProcessor.Outcome.ROLL_BACK;
        }
        if (outcome == StepProcessor.Outcome.ROLL_BACK) {
            Tracing.failed(span, "rolled back: the broker delivers it again, or parks it in the dead-letter queue");
            context.setRollbackOnly();
        }
        span.end();
    }

    private static String property(Message message, String name) {
        try {
            return message.getStringProperty(name);
        } catch (JMSException | RuntimeException e) {
            return null; // not a string, or sent by hand without it: the span goes without it
        }
    }

    private String queue() {
        if (queue == null) {
            for (Class<?> type = getClass(); type != null && queue == null; type = type.getSuperclass()) {
                MessageDriven bean = type.getAnnotation(MessageDriven.class);
                if (bean != null) {
                    for (ActivationConfigProperty property : bean.activationConfig()) {
                        if ("destination".equals(property.propertyName())) {
                            queue = property.propertyValue();
                        }
                    }
                }
            }
            if (queue == null) {
                throw new IllegalStateException(getClass().getName() + " names no destination in its activation config");
            }
        }
        return queue;
    }
}
