package dev.lazarus.pipeline.boundary;

import dev.lazarus.pipeline.control.StepMessage;
import dev.lazarus.pipeline.control.StepProcessor;
import dev.lazarus.platform.control.Tracing;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.ApplicationException;
import jakarta.ejb.MessageDriven;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
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
 * It delegates and never swallows a failure. No transaction spans a delivery ({@code NOT_SUPPORTED}): the step's
 * database work commits in transactions of its own, the next step's message is sent after that, and the resource
 * adapter acknowledges the message when {@code onMessage} returns (see {@link StepProcessor}). When the step must be
 * retried it throws {@link Redeliver}: the resource adapter rolls the delivery back, the broker redelivers with the
 * step's backoff, and after the last attempt the message is parked in the step's dead-letter queue.
 */
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public abstract class StepConsumer implements MessageListener {

    private static final Logger LOG = Logger.getLogger(StepConsumer.class.getName());

    @Inject
    StepProcessor processor;

    @Inject
    Tracing tracing;

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
            outcome = StepProcessor.Outcome.REDELIVER;
        } catch (Error e) {
            // said here: the resource adapter's own line for a failed delivery is filtered out (lazarus.cli)
            LOG.log(Level.SEVERE, "A delivery failed with an error; the broker redelivers it", e);
            span.recordException(e);
            span.end();
            throw e;
        }
        if (outcome == StepProcessor.Outcome.REDELIVER) {
            Tracing.failed(span, "rolled back: the broker delivers it again, or parks it in the dead-letter queue");
            span.end();
            throw Redeliver.INSTANCE;
        }
        span.end();
    }

    /**
     * Thrown to the resource adapter to have a delivery rolled back: without a transaction around the delivery, an
     * exception is the only way to say so. The resource adapter then returns the message to the broker, which
     * redelivers it with the step's backoff. An application exception, so the container neither logs it nor discards the
     * bean instance; it carries no stack trace (the resource adapter's log line for it is filtered out, see lazarus.cli).
     */
    @ApplicationException
    public static final class Redeliver extends RuntimeException {

        private static final long serialVersionUID = 1L;

        static final Redeliver INSTANCE = new Redeliver();

        private Redeliver() {
            super("Lazarus: redeliver this step message (a retry, not an error)", null, false, false);
        }
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
