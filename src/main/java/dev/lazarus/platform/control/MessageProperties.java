package dev.lazarus.platform.control;

import dev.lazarus.platform.entity.Text;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Copying a received message's own properties onto a message Lazarus sends in its place (a message parked in
 * a DLQ, a step message sent back to wait). The one rule for what is carried over: never the provider's and
 * broker's (JMS*, _AMQ*), never one JMS cannot name (sent over AMQP, say), never one too large for the broker
 * to take in a message header. Whatever a producer put on a message, the copy can be sent; what it lost is
 * named on it ({@value #DROPPED}).
 */
public final class MessageProperties {

    /** Names the properties a copy could not carry. */
    public static final String DROPPED = "lazarusDroppedProperties";

    /** The largest text value carried; the broker refuses messages whose headers pass about 100 KiB in all. */
    static final int MAX_VALUE_CHARS = 4_096;
    /** The most properties carried. */
    static final int MAX_PROPERTIES = 100;

    private MessageProperties() {
    }

    /** The message's own properties, except the names in {@code skip}, in the order it lists them. */
    public static Map<String, Object> of(Message message, Set<String> skip) throws JMSException {
        Map<String, Object> properties = new LinkedHashMap<>();
        for (String name : Collections.list(names(message))) {
            if (!name.startsWith("JMS") && !name.startsWith("_AMQ") && !name.startsWith("__AMQ") && !skip.contains(name)) {
                properties.put(name, message.getObjectProperty(name));
            }
        }
        return properties;
    }

    /** Sets {@code properties} on {@code copy}, leaving out what it cannot carry, and names those on it. */
    public static void copyTo(Message copy, Map<String, Object> properties) throws JMSException {
        List<String> dropped = new ArrayList<>();
        int copied = 0;
        for (Map.Entry<String, Object> property : properties.entrySet()) {
            if (copied >= MAX_PROPERTIES || property.getValue() instanceof String text && text.length() > MAX_VALUE_CHARS) {
                dropped.add(property.getKey());
                continue;
            }
            try {
                copy.setObjectProperty(property.getKey(), property.getValue());
                copied++;
            } catch (JMSException | RuntimeException notAJmsName) {
                dropped.add(property.getKey());
            }
        }
        if (!dropped.isEmpty()) {
            copy.setStringProperty(DROPPED, Text.truncate(String.join(",", dropped), 1000));
        }
    }

    @SuppressWarnings("unchecked")
    private static Enumeration<String> names(Message message) throws JMSException {
        return (Enumeration<String>) message.getPropertyNames();
    }
}
