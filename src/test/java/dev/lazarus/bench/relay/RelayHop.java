package dev.lazarus.bench.relay;

import jakarta.inject.Inject;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.jms.Queue;
import jakarta.jms.TextMessage;

/**
 * One hop of the bare relay the pipeline benchmark compares Lazarus with: a container-managed (XA) transaction
 * that consumes a message and sends its text on to the next queue, and nothing else. It runs in the same
 * WildFly, through the same resource adapter and pooled connection factory, against the same broker as
 * Lazarus's step consumers, so the difference between the two is Lazarus's bookkeeping.
 *
 * <p>Deployed only by the benchmark ({@code bench-relay.war}, built from these classes), never part of Lazarus.
 */
public abstract class RelayHop implements MessageListener {

    public static final String FIRST = "bench.relay.1";
    public static final String SECOND = "bench.relay.2";
    public static final String THIRD = "bench.relay.3";
    /** Where the last hop sends; nothing consumes it, the benchmark counts it. */
    public static final String DONE = "bench.relay.done";

    @Inject
    JMSContext jms;

    /** Kept per bean instance: creating a queue object asks the broker whether it exists (a round trip). */
    private Queue next;

    protected abstract String nextQueue();

    @Override
    public void onMessage(Message message) {
        try {
            if (next == null) {
                next = jms.createQueue(nextQueue());
            }
            jms.createProducer().setDeliveryMode(DeliveryMode.PERSISTENT).send(next, ((TextMessage) message).getText());
        } catch (JMSException e) {
            throw new JMSRuntimeException(e.getMessage(), e.getErrorCode(), e);
        }
    }
}
