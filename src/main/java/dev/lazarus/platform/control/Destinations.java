package dev.lazarus.platform.control;

import jakarta.jms.JMSContext;
import jakarta.jms.Queue;
import jakarta.transaction.TransactionScoped;
import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;

/**
 * The JMS {@link Queue} objects of one transaction, looked up once per name.
 *
 * <p>Why: the Artemis client asks the broker whether a queue exists every time {@code createQueue} is
 * called, and again at the first send to each new {@code Queue} object (it remembers the answer on the
 * object). A fresh object per message therefore cost three blocking round trips per send: a bulk requeue
 * batch of 500 spent most of its time waiting on them. Kept per transaction, not for the application's
 * lifetime, so the check still runs once in every transaction: a queue an operator deleted in the console
 * is found missing (or auto-created, if the broker allows it) instead of messages being sent to an address
 * that no longer routes them anywhere.
 */
@TransactionScoped
public class Destinations implements Serializable {

    private static final long serialVersionUID = 1L;

    private final Map<String, Queue> queues = new HashMap<>();

    public Queue queue(JMSContext jms, String name) {
        return queues.computeIfAbsent(name, jms::createQueue);
    }
}
