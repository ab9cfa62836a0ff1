package dev.lazarus.bench.relay;

import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
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
 * A hop of the non-transacted relay: the bean runs without a transaction ({@code NOT_SUPPORTED}), so the resource
 * adapter acknowledges the message after {@code onMessage} returns and the send is a plain persistent send. It
 * guarantees nothing (a crash between the send and the acknowledgement doubles the message); it is the floor of
 * what a JMS hop costs on this server.
 */
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public abstract class PlainHop implements MessageListener {

    public static final String FIRST = "bench.plain.1";
    public static final String SECOND = "bench.plain.2";
    public static final String THIRD = "bench.plain.3";
    public static final String DONE = "bench.plain.done";

    @Inject
    JMSContext jms;

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
