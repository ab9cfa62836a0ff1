package dev.lazarus.pipeline.control;

import dev.lazarus.platform.control.Destinations;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import dev.lazarus.platform.control.Tracing;
import dev.lazarus.platform.control.MessageProperties;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.Message;
import jakarta.jms.Queue;
import jakarta.jms.TextMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one place that sends step messages, two ways:
 * <ul>
 * <li>{@link #dispatch} and {@link #redispatch} use the container's JMSContext inside the caller's JTA transaction (an
 * operator's requeue: the message leaves only if the database work around it commits, in two phases);</li>
 * <li>{@link #send} sends a {@link Dispatch} the caller's transaction recorded, after that transaction committed and
 * outside any: the hot path (a step's next dispatch, a submission's first). A crash between the commit and the send
 * leaves the dispatch recorded and not sent: the redelivery of the step that made it, or {@link Dispatches} for a
 * submission, sends it again.</li>
 * </ul>
 * Either way the message carries the broker's duplicate-detection id {@value #DUPLICATE_ID}, the dispatch's
 * idempotency key (run, step, generation: one per dispatch): a dispatch sent twice (again after a crash, by two nodes
 * recovering it) reaches its queue once while the broker remembers the first (the step queues'
 * {@code lazarus.broker.duplicate-ids} most recent ids). That is the broker's help, not the guarantee: a broker keeps
 * its own ids (with two clustered brokers, a copy sent to the other one is not recognised), and one it no longer
 * remembers reaches the queue too. The guarantee is the run's fencing: a copy of a dispatch whose step has completed is
 * a replay, acknowledged without running (see {@link StepLedger}); two copies of one dispatch delivered at once may
 * both start the step, and only one records it (its run's version), so a handler's effects outside the step's
 * transaction must be idempotent, as they always had to be across redeliveries.
 */
@ApplicationScoped
public class StepDispatcher {

    /** On a copy sent back to its queue: the JMS message id of the message as it was first sent. */
    public static final String FIRST_MESSAGE_ID = "lazarusFirstMessageId";

    /** Artemis's duplicate-detection property: a second message with the same value on an address is dropped. */
    public static final String DUPLICATE_ID = "_AMQ_DUPL_ID";

    /**
     * On every message Lazarus dispatches, and on the copies it sends back to wait: the dispatch it carries (its
     * idempotency key). A copy of a dispatch whose step completed is a replay when it bears this (Lazarus sent it twice:
     * a crash between commit and acknowledgement, a resend the broker no longer recognised); one without it was made by
     * hand, and is kept as evidence.
     */
    public static final String DISPATCH = "lazarusDispatch";

    @Inject
    JMSContext jms;

    /** The pooled connection factory (the one the injected context uses). */
    @Resource(lookup = "java:/jms/lazarus/ConnectionFactory")
    ConnectionFactory connectionFactory;

    @Inject
    Destinations destinations;

    @Inject
    Tracing tracing;

    /**
     * The step queues, looked up once for the sends made outside a transaction ({@link Destinations} keeps them per
     * transaction): looking a queue up asks the broker whether it exists, a round trip per send on the hot path.
     */
    private final Map<String, Queue> queues = new ConcurrentHashMap<>();

    /**
     * A dispatch a transaction recorded, to be sent once it has committed: the step, the message, the run's trace and
     * the trace context it was made under (the step's or the submission's span), and the provenance of a requeue.
     */
    public record Dispatch(StepDefinition step, StepMessage message, String runTraceId, Context traceContext) {

        /** Made under the current trace context. */
        public static Dispatch of(StepDefinition step, StepMessage message, String runTraceId) {
            return new Dispatch(step, message, runTraceId, Context.current());
        }
    }

    /** In the caller's JTA transaction: it leaves only if the transaction commits. */
    public void dispatch(StepDefinition step, StepMessage message, String runTraceId) {
        send(jms, destinations.queue(jms, step.queue()), message, null, runTraceId);
    }

    /** A dispatch made by an operator's requeue, in the caller's JTA transaction: the message says how often, by whom and when. */
    public void redispatch(StepDefinition step, StepMessage message, Requeue provenance, String runTraceId) {
        send(jms, destinations.queue(jms, step.queue()), message, provenance, runTraceId);
    }

    /**
     * Sends a dispatch whose transaction has committed; outside any transaction (a plain persistent send, which returns
     * once the broker has stored it), with a context of its own from the pooled connection factory: the injected one
     * looks up its request's context on every call, which cost a step's send more than the send.
     *
     * @throws JMSRuntimeException if the broker did not take it (the caller sends it again later)
     */
    public void send(Dispatch dispatch) {
        try (Scope scope = dispatch.traceContext().makeCurrent(); JMSContext context = connectionFactory.createContext()) {
            Queue queue = queues.computeIfAbsent(dispatch.step().queue(), context::createQueue);
            send(context, queue, dispatch.message(), null, dispatch.runTraceId());
        }
    }

    private void send(JMSContext context, Queue queue, StepMessage message, Requeue provenance, String runTraceId) {
        try {
            TextMessage text = context.createTextMessage(message.toJson());
            message.writeProperties(text);
            text.setStringProperty(DUPLICATE_ID, message.idempotencyKey());
            text.setStringProperty(DISPATCH, message.idempotencyKey());
            tracing.inject(text, runTraceId);
            if (provenance != null) {
                text.setIntProperty(StepMessage.REQUEUE_COUNT, provenance.count());
                text.setStringProperty(StepMessage.REQUEUED_BY, provenance.by());
                text.setStringProperty(StepMessage.REQUEUED_AT, provenance.at().toString());
            }
            context.createProducer()
                    .setDeliveryMode(DeliveryMode.PERSISTENT)
                    .send(queue, text);
        } catch (JMSException e) {
            throw new JMSRuntimeException("could not dispatch " + message.idempotencyKey() + " to " + queue
                    + ": " + e.getMessage(), e.getErrorCode(), e);
        }
    }

    /**
     * Sends a copy of a delivered step message back to its queue, to arrive after {@code delay}, with its
     * properties and {@code extra} ones, with a context of its own (outside a transaction the injected one is not the
     * thread's own) (not the broker's: the copy has no duplicate-detection id, or the broker
     * would drop it as the original's duplicate); outside a transaction, before the original is acknowledged. The copy
     * starts with a fresh delivery count: waiting for the database costs none of the broker's deliveries. A crash
     * before the acknowledgement leaves two copies of one dispatch, and the run's fencing runs it once.
     */
    public void sendBackLater(TextMessage original, String queue, Duration delay, Map<String, Object> extra) {
        try (JMSContext context = connectionFactory.createContext()) {
            TextMessage copy = context.createTextMessage(original.getText());
            Map<String, Object> properties = MessageProperties.of(original, extra.keySet());
            properties.putAll(extra);
            MessageProperties.copyTo(copy, properties);
            if (!original.propertyExists(FIRST_MESSAGE_ID)) {
                // the copy gets an id of its own: it keeps the one its producer and the broker's log know it by
                copy.setStringProperty(FIRST_MESSAGE_ID, original.getJMSMessageID());
            }
            if (original.getJMSMessageID() != null) {
                // one copy per delivered message: if this consumer dies before the original is acknowledged, the original
                // comes back and sends its copy again, which the broker drops (each later copy is a message of its own)
                copy.setStringProperty(DUPLICATE_ID, "wait:" + original.getJMSMessageID());
            }
            context.createProducer()
                    .setDeliveryMode(DeliveryMode.PERSISTENT)
                    .setDeliveryDelay(delay.toMillis())
                    .send(queues.computeIfAbsent(queue, context::createQueue), copy);
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

    /** Whether Lazarus dispatched this message (or a copy of it it sent back to wait) for this very dispatch. */
    public static boolean isOwnDispatch(Message message, StepMessage dispatch) {
        try {
            return dispatch.idempotencyKey().equals(message.getStringProperty(DISPATCH));
        } catch (JMSException | RuntimeException e) {
            return false; // not a string: not ours
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
