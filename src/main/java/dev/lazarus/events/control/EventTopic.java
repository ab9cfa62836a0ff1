package dev.lazarus.events.control;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSProducer;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Publishes committed events on the topic {@value Events#TOPIC}: one persistent {@code TextMessage} per event, its
 * body the event's JSON, with the properties {@value #TYPE} (the type, for message selectors such as
 * {@code lazarusEventType = 'dead-lettered'}) and {@value #ID}. Outside any transaction (the change has committed);
 * a failure is logged and dropped: the event stays readable over the API.
 */
@ApplicationScoped
public class EventTopic {

    public static final String TYPE = "lazarusEventType";
    public static final String ID = "lazarusEventId";

    private static final Logger LOG = Logger.getLogger(EventTopic.class.getName());

    @Resource(lookup = "java:/jms/lazarus/ConnectionFactory")
    ConnectionFactory connectionFactory;

    public void publish(List<Events.Stored> events) {
        try (JMSContext context = connectionFactory.createContext()) {
            Topic topic = context.createTopic(Events.TOPIC);
            JMSProducer producer = context.createProducer().setDeliveryMode(DeliveryMode.PERSISTENT);
            for (Events.Stored event : events) {
                TextMessage message = context.createTextMessage(event.json());
                message.setStringProperty(TYPE, event.type());
                message.setLongProperty(ID, event.id());
                producer.send(topic, message);
            }
        } catch (JMSException | RuntimeException e) {
            LOG.log(Level.WARNING, "Could not publish {0} event(s) on {1} (they stay readable at GET /api/events): {2}",
                    new Object[] {events.size(), Events.TOPIC, String.valueOf(e)});
        }
    }
}
