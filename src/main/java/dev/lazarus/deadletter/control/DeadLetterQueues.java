package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.pipeline.control.StepMessage;
import dev.lazarus.platform.control.Destinations;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.BytesMessage;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.UUID;

/**
 * The per-queue dead-letter queues ({@code DLQ.<queue>}) as Lazarus touches them: parking a message there
 * itself (for messages that can never succeed, instead of burning the broker's retries) and taking a run's
 * message out again for a requeue. Both join the caller's JTA transaction, so a message is never in two
 * places or in none.
 */
@ApplicationScoped
public class DeadLetterQueues {

    /** Properties the broker sets when it moves a message to a dead-letter address; the console's Retry reads them. */
    static final String ORIGINAL_ADDRESS = "_AMQ_ORIG_ADDRESS";
    static final String ORIGINAL_QUEUE = "_AMQ_ORIG_QUEUE";
    public static final String REASON = "lazarusReason";
    /** On messages Lazarus parked itself: the dead letter that explains them. */
    public static final String DEAD_LETTER_ID = "lazarusDeadLetterId";

    /** How long a requeue waits for its run's message to be handed over by the broker. */
    private static final long TAKE_TIMEOUT_MILLIS = 1000;

    @Inject
    JMSContext jms;

    @Inject
    Destinations destinations;

    /** Copies {@code message} (body and properties) into {@code DLQ.<queue>}, marked like a broker move. */
    public void park(Message message, String queue, DeadLetterReason reason, Long deadLetterId) {
        try {
            Message copy = copyOf(message);
            for (String name : Collections.list(propertyNames(message))) {
                if (!name.startsWith("JMS")) { // JMSX* and vendor JMS_* properties belong to the provider
                    copy.setObjectProperty(name, message.getObjectProperty(name));
                }
            }
            copy.setStringProperty(ORIGINAL_ADDRESS, queue);
            copy.setStringProperty(ORIGINAL_QUEUE, queue);
            copy.setStringProperty(REASON, reason.name());
            if (deadLetterId != null) {
                copy.setLongProperty(DEAD_LETTER_ID, deadLetterId);
            }
            jms.createProducer()
                    .setDeliveryMode(DeliveryMode.PERSISTENT)
                    .send(destinations.queue(jms, StepDefinition.DEAD_LETTER_QUEUE_PREFIX + queue), copy);
        } catch (JMSException e) {
            throw new JMSRuntimeException("could not park a message from " + queue + " in its dead-letter queue: "
                    + e.getMessage(), e.getErrorCode(), e);
        }
    }

    /**
     * Removes the given runs' messages from {@code deadLetterQueue} within the caller's transaction, with one
     * consumer whose selector names them all (the broker filters; nothing else in the queue is touched).
     *
     * @return the runs whose message was there (none if an operator purged it in the console)
     */
    public Set<UUID> take(String deadLetterQueue, Collection<UUID> runIds) {
        Set<UUID> taken = new HashSet<>();
        if (runIds.isEmpty()) {
            return taken;
        }
        // UUIDs: nothing to escape
        String selector = StepMessage.RUN_ID + " IN (" + runIds.stream().map(id -> "'" + id + "'").collect(Collectors.joining(",")) + ")";
        try (JMSConsumer consumer = jms.createConsumer(destinations.queue(jms, deadLetterQueue), selector)) {
            long timeout = TAKE_TIMEOUT_MILLIS;
            Message message;
            while ((message = consumer.receive(timeout)) != null) {
                taken.add(UUID.fromString(message.getStringProperty(StepMessage.RUN_ID)));
                timeout = taken.containsAll(runIds) ? 10 : 100; // the rest, if any, are already on their way
            }
        } catch (JMSException e) {
            throw new JMSRuntimeException("could not take messages from " + deadLetterQueue + ": " + e.getMessage(),
                    e.getErrorCode(), e);
        }
        return taken;
    }

    private Message copyOf(Message message) throws JMSException {
        if (message instanceof TextMessage text) {
            return jms.createTextMessage(text.getText());
        }
        if (message instanceof BytesMessage bytes) {
            byte[] body = new byte[(int) bytes.getBodyLength()];
            bytes.reset();
            bytes.readBytes(body);
            BytesMessage copy = jms.createBytesMessage();
            copy.writeBytes(body);
            return copy;
        }
        // Map, object and stream bodies are never step messages; keep what can be shown.
        return jms.createTextMessage(String.valueOf(message));
    }

    @SuppressWarnings("unchecked")
    private static java.util.Enumeration<String> propertyNames(Message message) throws JMSException {
        return (java.util.Enumeration<String>) message.getPropertyNames();
    }
}
