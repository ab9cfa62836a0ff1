package dev.lazarus.platform.control;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The brokers that hold Lazarus's queues. One, the node's own, unless {@code lazarus.brokers} names the members of
 * an Artemis cluster: then each has a connection factory of its own ({@code java:/jms/lazarus/brokers/<name>},
 * pinned to that broker, see {@code wildfly-config/cluster.cli}), because a dead-letter queue is not shared by a
 * cluster: a message dies on the broker where its last delivery failed and stays there, so whatever looks at or
 * takes dead-lettered messages asks every broker.
 *
 * <p>Step messages are sent and consumed through the node's own broker only; the cluster moves them to where the
 * consumers are.
 */
@ApplicationScoped
public class Brokers {

    static final String OWN = "java:/jms/lazarus/ConnectionFactory";
    static final String MEMBER = "java:/jms/lazarus/brokers/";

    @Resource(lookup = OWN)
    ConnectionFactory own;

    @Inject
    @ConfigProperty(name = "lazarus.brokers")
    Optional<List<String>> names;

    private List<Broker> all;

    /** One broker of the cluster (or the only one), by the name Lazarus knows it under. */
    public record Broker(String name, ConnectionFactory connectionFactory) {

        /**
         * A JMS context on this broker: inside a transaction it joins it (the connection factories are XA), outside
         * it acknowledges by itself. Close it after use.
         */
        public JMSContext open() {
            return connectionFactory.createContext();
        }

        @Override
        public String toString() {
            return name;
        }
    }

    @PostConstruct
    void lookUp() {
        List<Broker> found = new ArrayList<>();
        for (String name : names.orElse(List.of())) {
            try {
                found.add(new Broker(name, (ConnectionFactory) new InitialContext().lookup(MEMBER + name)));
            } catch (NamingException e) {
                throw new IllegalStateException("lazarus.brokers names broker " + name + " but there is no connection factory "
                        + MEMBER + name + " (see wildfly-config/cluster.cli)", e);
            }
        }
        all = found.isEmpty() ? List.of(new Broker("own", own)) : List.copyOf(found);
    }

    /** Every broker, each once. */
    public List<Broker> all() {
        return all;
    }

    public boolean clustered() {
        return all.size() > 1;
    }
}
