package dev.lazarus.it;

import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.QueueBrowser;
import jakarta.jms.Session;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import jakarta.jms.QueueConnection;
import jakarta.jms.QueueRequestor;
import jakarta.jms.QueueSession;
import org.apache.activemq.artemis.api.core.management.ResourceNames;
import org.apache.activemq.artemis.api.jms.ActiveMQJMSClient;
import org.apache.activemq.artemis.api.jms.management.JMSManagementHelper;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;

/** A plain JMS client of the test broker, as an operator or a misbehaving producer would use it. */
public class Broker {

    private final ActiveMQConnectionFactory factory;

    public Broker(int port) {
        factory = new ActiveMQConnectionFactory("tcp://127.0.0.1:" + port, "admin", "admin");
    }

    /** Drops a text message straight into a queue, past the API. */
    public void send(String queue, String text) {
        try (Connection connection = factory.createConnection();
             Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE)) {
            session.createProducer(session.createQueue(queue)).send(session.createTextMessage(text));
        } catch (JMSException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Drops a message of any kind straight into a queue; returns the message id the broker gave it. */
    public String send(String queue, MessageMaker maker) {
        try (Connection connection = factory.createConnection();
             Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE)) {
            Message message = maker.make(session);
            session.createProducer(session.createQueue(queue)).send(message);
            return message.getJMSMessageID();
        } catch (JMSException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Builds a message in a session. */
    @FunctionalInterface
    public interface MessageMaker {
        Message make(Session session) throws JMSException;
    }

    /** The messages in {@code queue} matching {@code selector}, left in place. */
    public List<Message> browse(String queue, String selector) {
        try (Connection connection = factory.createConnection();
             Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE)) {
            connection.start();
            QueueBrowser browser = session.createBrowser(session.createQueue(queue), selector);
            List<Message> messages = new ArrayList<>();
            for (Object message : Collections.list(browser.getEnumeration())) {
                messages.add((Message) message);
            }
            return messages;
        } catch (JMSException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Consumes (removes) the messages matching {@code selector}, as a console purge would; returns how many. */
    public int purge(String queue, String selector) {
        try (Connection connection = factory.createConnection();
             Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE)) {
            connection.start();
            var consumer = session.createConsumer(session.createQueue(queue), selector);
            int purged = 0;
            while (consumer.receive(1000) != null) {
                purged++;
            }
            return purged;
        } catch (JMSException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Does what the Artemis console's Retry button does for the run's message in {@code deadLetterQueue}:
     * {@code retryMessage(id)} on the queue's management resource, which sends it back to its original queue.
     */
    public boolean retryAsTheConsoleDoes(String deadLetterQueue, String runId) {
        String listed = (String) manage(ResourceNames.QUEUE + deadLetterQueue, "listMessagesAsJSON", "lazarusRunId = '" + runId + "'");
        jakarta.json.JsonArray messages = jakarta.json.Json.createReader(new java.io.StringReader(listed)).readArray();
        if (messages.size() != 1) {
            throw new AssertionError("expected one message of run " + runId + " in " + deadLetterQueue + ", found " + messages);
        }
        long id = messages.getJsonObject(0).getJsonNumber("messageID").longValue();
        return (Boolean) manage(ResourceNames.QUEUE + deadLetterQueue, "retryMessage", id);
    }

    /** Stops delivery from {@code queue} to its consumers; messages sent to it stay there, countable. */
    public void pause(String queue) {
        manage(ResourceNames.QUEUE + queue, "pause");
    }

    public void resume(String queue) {
        manage(ResourceNames.QUEUE + queue, "resume");
    }

    /** Whether {@code queue} is paused, as the broker (and its console) says. */
    public boolean isPaused(String queue) {
        return Boolean.TRUE.equals(manage(ResourceNames.QUEUE + queue, "isPaused"));
    }

    /** Creates a durable anycast queue of that name (on its own address), unless it exists. */
    public void createQueue(String queue) {
        manage(ResourceNames.BROKER, "createQueue", "{\"name\":\"" + queue + "\",\"address\":\"" + queue
                + "\",\"routing-type\":\"ANYCAST\",\"durable\":true}", true);
    }

    /** The address settings the broker applies to {@code address}, as JSON (its management's own form). */
    public String addressSettings(String address) {
        return String.valueOf(manage(ResourceNames.BROKER, "getAddressSettingsAsJSON", address));
    }

    /** Sets the address settings of {@code address} (JSON, in the form {@link #addressSettings} gives). */
    public void setAddressSettings(String address, String json) {
        manage(ResourceNames.BROKER, "addAddressSettings", address, json);
    }

    /** Removes every message from {@code queue}; returns how many. */
    public long removeAllMessages(String queue) {
        return ((Number) manage(ResourceNames.QUEUE + queue, "removeAllMessages")).longValue();
    }

    /**
     * Sends {@code count} persistent text messages to {@code queue}, committing every 500 (fast enough to fill a
     * paused queue for a benchmark).
     */
    public void sendMany(String queue, int count, java.util.function.IntFunction<String> text) {
        try (Connection connection = factory.createConnection();
             Session session = connection.createSession(true, Session.SESSION_TRANSACTED)) {
            var producer = session.createProducer(session.createQueue(queue));
            for (int i = 0; i < count; i++) {
                producer.send(session.createTextMessage(text.apply(i)));
                if (i % 500 == 499) {
                    session.commit();
                }
            }
            session.commit();
        } catch (JMSException e) {
            throw new IllegalStateException(e);
        }
    }

    private Object manage(String resource, String operation, Object... arguments) {
        try (QueueConnection connection = factory.createQueueConnection();
             QueueSession session = connection.createQueueSession(false, Session.AUTO_ACKNOWLEDGE)) {
            connection.start();
            QueueRequestor requestor = new QueueRequestor(session, ActiveMQJMSClient.createQueue("activemq.management"));
            Message request = session.createMessage();
            JMSManagementHelper.putOperationInvocation(request, resource, operation, arguments);
            Message reply = requestor.request(request);
            if (!JMSManagementHelper.hasOperationSucceeded(reply)) {
                throw new IllegalStateException(operation + " failed: " + JMSManagementHelper.getResult(reply));
            }
            return JMSManagementHelper.getResult(reply);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** How many messages {@code queue} has taken in since the broker started (sent to it, redelivered ones not counted). */
    public long messagesAdded(String queue) {
        return ((Number) attribute(ResourceNames.QUEUE + queue, "messagesAdded")).longValue();
    }

    private Object attribute(String resource, String attribute) {
        try (QueueConnection connection = factory.createQueueConnection();
             QueueSession session = connection.createQueueSession(false, Session.AUTO_ACKNOWLEDGE)) {
            connection.start();
            QueueRequestor requestor = new QueueRequestor(session, ActiveMQJMSClient.createQueue("activemq.management"));
            Message request = session.createMessage();
            JMSManagementHelper.putAttribute(request, resource, attribute);
            return JMSManagementHelper.getResult(requestor.request(request));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** What the broker counts on {@code queue}: waiting, scheduled for redelivery and being delivered. */
    public long messageCount(String queue) {
        try (QueueConnection connection = factory.createQueueConnection();
             QueueSession session = connection.createQueueSession(false, Session.AUTO_ACKNOWLEDGE)) {
            connection.start();
            QueueRequestor requestor = new QueueRequestor(session, ActiveMQJMSClient.createQueue("activemq.management"));
            Message request = session.createMessage();
            JMSManagementHelper.putAttribute(request, ResourceNames.QUEUE + queue, "messageCount");
            Message reply = requestor.request(request);
            return ((Number) JMSManagementHelper.getResult(reply)).longValue();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public List<Message> messagesOfRun(String queue, String runId) {
        return browse(queue, "lazarusRunId = '" + runId + "'");
    }
}
