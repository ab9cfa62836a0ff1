package dev.lazarus.bench.relay;

import jakarta.inject.Inject;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.jms.Queue;
import jakarta.jms.TextMessage;
import java.util.UUID;

/** What both ledger relays share: the message names an item and its hop ({@code <uuid>:<hop>}). */
public abstract class LedgerHop implements MessageListener {

    @Inject
    JMSContext jms;

    @Inject
    Ledger ledger;

    private Queue next;

    protected abstract String nextQueue();

    /** Carries the item across the hop; {@code item} and {@code hop} come from the message. */
    protected abstract void relay(UUID item, int hop) throws JMSException;

    @Override
    public void onMessage(Message message) {
        try {
            String[] parts = ((TextMessage) message).getText().split(":");
            relay(UUID.fromString(parts[0]), Integer.parseInt(parts[1]));
        } catch (JMSException e) {
            throw new JMSRuntimeException(e.getMessage(), e.getErrorCode(), e);
        }
    }

    protected Queue next() {
        if (next == null) {
            next = jms.createQueue(nextQueue());
        }
        return next;
    }
}
