package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.pipeline.control.StepMessage;
import dev.lazarus.platform.control.BrokerManagement;
import dev.lazarus.platform.control.Brokers;
import dev.lazarus.platform.control.Destinations;
import dev.lazarus.platform.control.MessageProperties;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.BytesMessage;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.Message;
import jakarta.jms.QueueBrowser;
import jakarta.jms.TextMessage;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * The per-queue dead-letter queues ({@code DLQ.<queue>}) as Lazarus touches them: parking a message there
 * (a step that used its attempts, a message that can never execute), taking a run's message out again for a
 * requeue, and removing the message of a dead letter that retention purges. All of it joins the caller's JTA
 * transaction, so a message is never in two places or in none.
 *
 * <p>Every message Lazarus parks carries the id of the dead letter that explains it and that dead letter's
 * {@linkplain DeadLetter#parkedToken() token}. The reconciler looks only at messages without a token (the
 * ones the broker moved by itself), and a message retried from the Artemis console is recognised by its
 * token, never by a guess.
 */
@ApplicationScoped
public class DeadLetterQueues {

    /** Properties the broker sets when it moves a message to a dead-letter address; the console's Retry reads them. */
    static final String ORIGINAL_ADDRESS = "_AMQ_ORIG_ADDRESS";
    static final String ORIGINAL_QUEUE = "_AMQ_ORIG_QUEUE";
    public static final String REASON = "lazarusReason";
    /** On messages Lazarus parked: the dead letter that explains them, and its token. */
    public static final String DEAD_LETTER_ID = "lazarusDeadLetterId";
    public static final String PARKED_TOKEN = "lazarusParkedToken";
    /** On a parked copy: the names of properties of the original that JMS could not carry over. */
    public static final String DROPPED_PROPERTIES = MessageProperties.DROPPED;

    /** How long a requeue waits for its run's message to be handed over by the broker. */
    private static final long TAKE_TIMEOUT_MILLIS = 1000;

    @Inject
    JMSContext jms;

    @Inject
    Destinations destinations;

    @Inject
    Brokers brokers;

    @Inject
    BrokerManagement management;

    /** The mark Lazarus put on a message it parked, if it has one: what a console Retry brings back. */
    public record ParkedMark(long deadLetterId, String token) {

        public static ParkedMark of(Message message) {
            try {
                if (message.propertyExists(DEAD_LETTER_ID) && message.propertyExists(PARKED_TOKEN)) {
                    return new ParkedMark(message.getLongProperty(DEAD_LETTER_ID), message.getStringProperty(PARKED_TOKEN));
                }
            } catch (JMSException | RuntimeException e) {
                // a property of the wrong type: not a mark of ours
            }
            return null;
        }
    }

    /** Copies {@code message} (body and properties) into {@code DLQ.<queue>} on this node's broker, marked with its dead letter. */
    public void park(Message message, String queue, DeadLetter deadLetter) {
        send(jms, message, queue, deadLetter);
    }

    /**
     * The same, on the given broker: a message the reconciler found in a dead-letter queue is parked again where
     * it was, so each broker's console keeps showing the dead letters that died there.
     */
    public void park(Brokers.Broker broker, Message message, String queue, DeadLetter deadLetter) {
        try (JMSContext context = broker.open()) {
            send(context, message, queue, deadLetter);
        }
    }

    /**
     * Copies {@code message} into {@code DLQ.<queue>} unexplained, as the broker would have moved it: for a step
     * whose attempts are used up while its diagnostics cannot be written. The reconciler records it later.
     */
    public void parkUnexplained(Message message, String queue) {
        send(jms, message, queue, null);
    }

    private void send(JMSContext context, Message message, String queue, DeadLetter deadLetter) {
        try {
            // an old mark is replaced below
            Map<String, Object> properties = MessageProperties.of(message, Set.of(DEAD_LETTER_ID, PARKED_TOKEN));
            Message copy = copyOf(context, message);
            MessageProperties.copyTo(copy, properties);
            copy.setStringProperty(ORIGINAL_ADDRESS, queue);
            copy.setStringProperty(ORIGINAL_QUEUE, queue);
            if (deadLetter != null) {
                copy.setStringProperty(REASON, deadLetter.reason().name());
                copy.setLongProperty(DEAD_LETTER_ID, deadLetter.id());
                copy.setStringProperty(PARKED_TOKEN, deadLetter.markParked());
                if (deadLetter.runId() != null && !message.propertyExists(StepMessage.RUN_ID)) {
                    // sent by hand with the run only in its body: named here too, so it can be found by run in the console
                    copy.setStringProperty(StepMessage.RUN_ID, deadLetter.runId().toString());
                }
            }
            context.createProducer()
                    .setDeliveryMode(DeliveryMode.PERSISTENT)
                    .send(destinations.queue(context, StepDefinition.DEAD_LETTER_QUEUE_PREFIX + queue), copy);
        } catch (JMSException e) {
            throw new JMSRuntimeException("could not park a message from " + queue + " in its dead-letter queue: "
                    + e.getMessage(), e.getErrorCode(), e);
        }
    }

    /**
     * Removes the messages of these dead letters from {@code deadLetterQueue}, and the runs' messages the broker
     * moved there by itself (no mark yet), within the caller's transaction: one consumer whose selector names
     * them all, so the broker filters and nothing else in the queue is touched (a stale copy of a run's message,
     * parked with a dead letter of its own, stays).
     *
     * @return the runs whose message was there (none if an operator purged it in the console)
     */
    public Set<UUID> take(String deadLetterQueue, Collection<DeadLetter> deadLetters) {
        Set<UUID> taken = new HashSet<>();
        if (deadLetters.isEmpty()) {
            return taken;
        }
        Set<UUID> runIds = deadLetters.stream().map(DeadLetter::runId).collect(Collectors.toSet());
        List<String> tokens = deadLetters.stream().map(DeadLetter::parkedToken).filter(Objects::nonNull).toList();
        // the messages parked with these dead letters, and unmarked ones (moved by the broker) of exactly their
        // dispatches; a stray copy of the run's message, of another dispatch, stays where it is.
        // UUIDs, tokens and numbers: nothing to escape (JMS selectors take IN lists of strings only)
        String unmarkedOfDispatch = deadLetters.stream().filter(d -> d.generation() != null)
                .map(d -> "(" + StepMessage.RUN_ID + " = '" + d.runId() + "' AND " + StepMessage.GENERATION + " = " + d.generation() + ")")
                .collect(Collectors.joining(" OR "));
        String selector = StepMessage.RUN_ID + " IN (" + quoted(runIds) + ") AND ("
                + (unmarkedOfDispatch.isEmpty() ? "FALSE" : "(" + PARKED_TOKEN + " IS NULL AND (" + unmarkedOfDispatch + "))")
                + (tokens.isEmpty() ? "" : " OR " + PARKED_TOKEN + " IN (" + quoted(tokens) + ")") + ")";
        for (Brokers.Broker broker : brokers.all()) {
            if (taken.containsAll(runIds)) {
                break;
            }
            // in a cluster, a broker that holds none of them is not waited on
            if (brokers.clustered() && !holdsAny(broker, deadLetterQueue, selector)) {
                continue;
            }
            try (JMSContext context = broker.open();
                 JMSConsumer consumer = context.createConsumer(destinations.queue(context, deadLetterQueue), selector)) {
                long timeout = TAKE_TIMEOUT_MILLIS;
                Message message;
                while ((message = consumer.receive(timeout)) != null) {
                    taken.add(UUID.fromString(message.getStringProperty(StepMessage.RUN_ID)));
                    timeout = taken.containsAll(runIds) ? 10 : 100; // the rest, if any, are already on their way
                }
            } catch (JMSException e) {
                throw new JMSRuntimeException("could not take messages from " + deadLetterQueue + " on broker " + broker + ": "
                        + e.getMessage(), e.getErrorCode(), e);
            }
        }
        return taken;
    }

    /** Whether a message of {@code deadLetterQueue} on {@code broker} matches {@code selector} (browsed, left in place). */
    private boolean holdsAny(Brokers.Broker broker, String deadLetterQueue, String selector) {
        try (JMSContext context = broker.open();
             QueueBrowser browser = context.createBrowser(context.createQueue(deadLetterQueue), selector)) {
            return browser.getEnumeration().hasMoreElements();
        } catch (JMSException e) {
            throw new JMSRuntimeException("could not browse " + deadLetterQueue + " on broker " + broker + ": " + e.getMessage(),
                    e.getErrorCode(), e);
        }
    }

    /** Removes one message, by its JMS message id, from {@code broker} within the caller's transaction; false if it is gone. */
    public boolean takeMessage(Brokers.Broker broker, String deadLetterQueue, String messageId) {
        if (messageId == null || !messageId.matches("[A-Za-z0-9:._-]{1,200}")) {
            return false; // nothing a selector could name safely
        }
        try (JMSContext context = broker.open();
             JMSConsumer consumer = context.createConsumer(destinations.queue(context, deadLetterQueue),
                     "JMSMessageID = '" + messageId + "' AND " + PARKED_TOKEN + " IS NULL")) {
            return consumer.receive(TAKE_TIMEOUT_MILLIS) != null;
        }
    }

    /**
     * Removes the first unmarked message without a JMS message id (its producer disabled them, and no selector can
     * name one such message) from {@code broker} within the caller's transaction: the reconciler settles that one, and
     * the next of them in the next call. Empty if there is none left (settled meanwhile by another pass).
     */
    public Optional<Message> takeOneWithoutId(Brokers.Broker broker, String deadLetterQueue) {
        try (JMSContext context = broker.open();
             JMSConsumer consumer = context.createConsumer(destinations.queue(context, deadLetterQueue),
                     "JMSMessageID IS NULL AND " + PARKED_TOKEN + " IS NULL")) {
            return Optional.ofNullable(consumer.receive(TAKE_TIMEOUT_MILLIS));
        }
    }

    /**
     * Where another message of a run's dispatch is now, on any broker: waiting in the step's queue or being delivered
     * from it (to a consumer running the step). Empty if neither: then a message of that dispatch found in the step's
     * DLQ is the only one there is. Asked of the brokers' management (which runs outside the caller's transaction).
     */
    public Optional<String> otherMessageOfDispatch(StepDefinition step, UUID runId, long generation) {
        // a UUID and a number: nothing to escape
        String ofDispatch = StepMessage.RUN_ID + " = '" + runId + "' AND " + StepMessage.GENERATION + " = " + generation;
        for (Brokers.Broker broker : brokers.all()) {
            String resource = "queue." + step.queue();
            if (management.number(broker, resource, "countDeliveringMessages", ofDispatch) > 0) {
                return Optional.of("being delivered from " + step.queue() + " on broker " + broker);
            }
            if (management.number(broker, resource, "countMessages", ofDispatch) > 0) {
                return Optional.of("waiting in " + step.queue() + " on broker " + broker);
            }
        }
        return Optional.empty();
    }

    /**
     * Removes the parked messages of these dead letters from {@code deadLetterQueue}, within the caller's
     * transaction: what retention does when it purges them.
     *
     * @return how many messages were removed
     */
    public int remove(String deadLetterQueue, Collection<DeadLetter> deadLetters) {
        List<String> tokens = deadLetters.stream().map(DeadLetter::parkedToken).filter(Objects::nonNull).toList();
        if (tokens.isEmpty()) {
            return 0;
        }
        int removed = 0;
        for (Brokers.Broker broker : brokers.all()) {
            if (removed >= tokens.size()) {
                break;
            }
            try (JMSContext context = broker.open();
                 JMSConsumer consumer = context.createConsumer(destinations.queue(context, deadLetterQueue),
                         PARKED_TOKEN + " IN (" + quoted(tokens) + ")")) {
                long timeout = TAKE_TIMEOUT_MILLIS / 4; // most purged dead letters (the requeued ones) have no message left
                while (consumer.receive(timeout) != null) {
                    removed++;
                    timeout = removed >= tokens.size() ? 10 : 100;
                }
            }
        }
        return removed;
    }

    /**
     * Which of these dead letters have their parked message in {@code deadLetterQueue} now, on any broker (left in
     * place). Outside a transaction, or in one.
     */
    public Set<Long> present(String deadLetterQueue, Collection<DeadLetter> deadLetters) {
        Map<String, Long> byToken = deadLetters.stream().filter(d -> d.parkedToken() != null)
                .collect(Collectors.toMap(DeadLetter::parkedToken, DeadLetter::id));
        Set<Long> present = new HashSet<>();
        if (byToken.isEmpty()) {
            return present;
        }
        for (Brokers.Broker broker : brokers.all()) {
            // browsed outside any transaction (ParkedMessageCheck): the queue named directly, not through Destinations
            try (JMSContext context = broker.open();
                 QueueBrowser browser = context.createBrowser(context.createQueue(deadLetterQueue),
                         PARKED_TOKEN + " IN (" + quoted(byToken.keySet()) + ")")) {
                for (Object message : Collections.list(browser.getEnumeration())) {
                    Long id = byToken.get(((Message) message).getStringProperty(PARKED_TOKEN));
                    if (id != null) {
                        present.add(id);
                    }
                }
            } catch (JMSException e) {
                throw new JMSRuntimeException("could not browse " + deadLetterQueue + " on broker " + broker + ": " + e.getMessage(),
                        e.getErrorCode(), e);
            }
        }
        return present;
    }

    /** The selector of the messages Lazarus has not marked: what the reconciler must look at. */
    public static String unmarked() {
        return PARKED_TOKEN + " IS NULL";
    }

    private static String quoted(Collection<?> ids) {
        return ids.stream().map(id -> "'" + id + "'").collect(Collectors.joining(","));
    }

    private static Message copyOf(JMSContext context, Message message) throws JMSException {
        if (message instanceof TextMessage text) {
            return context.createTextMessage(text.getText());
        }
        if (message instanceof BytesMessage bytes) {
            byte[] body = new byte[(int) bytes.getBodyLength()];
            bytes.reset();
            bytes.readBytes(body);
            BytesMessage copy = context.createBytesMessage();
            copy.writeBytes(body);
            return copy;
        }
        // Map, object and stream bodies are never step messages, and copying them would mean reading them: an
        // object body would be deserialized, which a message from anyone must never be. The message itself is sent
        // on, its body untouched; its properties are cleared first (a received message's are read-only) and set
        // again by the caller.
        message.clearProperties();
        return message;
    }
}
