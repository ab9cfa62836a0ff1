package dev.lazarus.platform.control;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.JMSContext;
import jakarta.jms.Queue;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The JMS {@link Queue} objects Lazarus sends to and consumes from, looked up once per name.
 *
 * <p>Why: the Artemis client asks the broker whether a queue exists every time {@code createQueue} is
 * called, and again at the first send to each new {@code Queue} object (it remembers the answer on the
 * object). A fresh object per message therefore cost three blocking round trips per send; a bulk requeue of
 * 10 000 runs spent most of its time waiting on them. A {@code Queue} is a plain destination name that any
 * session of the same provider may use, so one per name is kept for the application's lifetime. The queues
 * themselves are created at deployment ({@code BrokerTopology}).
 */
@ApplicationScoped
public class Destinations {

    private final Map<String, Queue> queues = new ConcurrentHashMap<>();

    @Inject
    JMSContext jms;

    public Queue queue(String name) {
        return queues.computeIfAbsent(name, jms::createQueue);
    }
}
