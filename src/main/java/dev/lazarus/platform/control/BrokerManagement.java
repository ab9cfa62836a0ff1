package dev.lazarus.platform.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.TextMessage;
import jakarta.json.JsonArrayBuilder;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Invokes operations of an Artemis broker's management API by JMS management messages, over the connection
 * factory the application uses for that broker (the broker user needs the {@code manage} permission).
 *
 * <p>Never inside a transaction: the request would only be sent at commit, after the wait for its reply.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class BrokerManagement {

    static final String MANAGEMENT_ADDRESS = "activemq.management";
    static final String RESOURCE_NAME = "_AMQ_ResourceName";
    static final String OPERATION_NAME = "_AMQ_OperationName";
    static final String OPERATION_SUCCEEDED = "_AMQ_OperationSucceeded";

    /** The broker itself, as a management resource. */
    public static final String BROKER = "broker";

    @Inject
    @ConfigProperty(name = "lazarus.broker.management-timeout", defaultValue = "PT10S")
    Duration timeout;

    /**
     * @param arguments strings, numbers, booleans or null, in the operation's parameter order
     * @return the operation's result as the broker encodes it (a JSON array), or empty if it has none
     */
    public String invoke(Brokers.Broker broker, String resource, String operation, Object... arguments) {
        JsonArrayBuilder parameters = JSON.createArrayBuilder();
        for (Object argument : arguments) {
            if (argument == null) {
                parameters.addNull();
            } else if (argument instanceof Boolean b) {
                parameters.add(b);
            } else if (argument instanceof Integer || argument instanceof Long) {
                parameters.add(((Number) argument).longValue());
            } else if (argument instanceof Number n) {
                parameters.add(n.doubleValue());
            } else {
                parameters.add(argument.toString());
            }
        }
        // Closed in this order: the consumer (a temporary queue with a consumer cannot be deleted: the broker would keep
        // it as long as the pooled connection lives), then the connection, which deletes the temporary queue through the
        // session and then closes the session. A session closed before its connection is back in the pool, perhaps
        // already another thread's, when the connection deletes the queue through it.
        try (Connection connection = broker.connectionFactory().createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            TemporaryQueue replies = session.createTemporaryQueue();
            try (MessageConsumer consumer = session.createConsumer(replies)) {
                return call(connection, session, replies, consumer, parameters, broker, resource, operation);
            }
        } catch (JMSException e) {
            throw new BrokerManagementException(operation + " on " + resource + " (broker " + broker + "): " + e.getMessage(), e);
        }
    }

    private String call(Connection connection, Session session, TemporaryQueue replies, MessageConsumer consumer,
                        JsonArrayBuilder parameters, Brokers.Broker broker, String resource, String operation) throws JMSException {
        connection.start();
        TextMessage request = session.createTextMessage(parameters.build().toString());
        request.setStringProperty(RESOURCE_NAME, resource);
        request.setStringProperty(OPERATION_NAME, operation);
        request.setJMSReplyTo(replies);
        session.createProducer(session.createQueue(MANAGEMENT_ADDRESS)).send(request);
        Message reply = consumer.receive(timeout.toMillis());
        if (reply == null) {
            throw new BrokerManagementException(operation + " on " + resource + ": no reply from broker " + broker + " within " + timeout);
        }
        String result = bodyOf(reply);
        if (!reply.getBooleanProperty(OPERATION_SUCCEEDED)) {
            throw new BrokerManagementException(operation + " on " + resource + " failed on broker " + broker + ": " + result);
        }
        return result;
    }

    /** An operation whose answer is one number (a count), as a long. */
    public long number(Brokers.Broker broker, String resource, String operation, Object... arguments) {
        return Long.parseLong(single(invoke(broker, resource, operation, arguments)));
    }

    /** An operation whose answer is one boolean ({@code isPaused}). */
    public boolean flag(Brokers.Broker broker, String resource, String operation, Object... arguments) {
        return Boolean.parseBoolean(single(invoke(broker, resource, operation, arguments)));
    }

    /** The one value of an answer, without the brackets and quotes of the JSON array the broker encodes it in. */
    private static String single(String answer) {
        return answer.replaceAll("[\\[\\]\\s\"]", "");
    }

    private static String bodyOf(Message reply) throws JMSException {
        if (reply instanceof TextMessage text) {
            return text.getText();
        }
        return reply.isBodyAssignableTo(String.class) ? reply.getBody(String.class) : "";
    }

    public static class BrokerManagementException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public BrokerManagementException(String message) {
            super(message);
        }

        public BrokerManagementException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
