package dev.lazarus.pipeline.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.platform.control.BrokerManagement;
import dev.lazarus.platform.control.Brokers;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Makes the broker match the pipelines at start-up: for every step its queue, its own dead-letter queue
 * {@code DLQ.<queue>}, and address settings taken from the step's {@link RetryPolicy} (and the events' topic
 * {@code lazarus.events}, a multicast address), so the policy is
 * declared once, in code: the broker does the redelivery backoff, Lazarus counts the attempts, and the
 * broker's max delivery attempts is a backstop for a consumer that cannot take the message at all. Idempotent; re-applied at every deployment. If the broker is unreachable it tries again
 * every 15 seconds and says so in the log.
 */
@Singleton
@Startup
@DependsOn("SchemaMigration")
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class BrokerTopology {

    private static final Logger LOG = Logger.getLogger(BrokerTopology.class.getName());
    private static final long RETRY_MILLIS = 15_000;

    @Inject
    Pipelines pipelines;

    @Inject
    BrokerManagement management;

    @Inject
    Brokers brokers;

    @Resource
    TimerService timers;

    /** Deliveries the broker may spend on a step message before its step ran (see RetryPolicy#brokerDeliveryLimit). */
    @Inject
    @ConfigProperty(name = "lazarus.consumer.spare-deliveries", defaultValue = "20")
    int spareDeliveries;

    /**
     * How many duplicate-detection ids each step queue's address remembers (see {@link StepDispatcher}): a dispatch sent
     * again while its first copy is among the last this many sent to its step is dropped by the broker. Beyond it, the
     * copy reaches the queue and is acknowledged as a replay without running. The broker's default is 20 000.
     */
    @Inject
    @ConfigProperty(name = "lazarus.broker.duplicate-ids", defaultValue = "100000")
    int duplicateIds;

    private volatile boolean applied;

    @PostConstruct
    void start() {
        tryApply();
    }

    @Timeout
    void retry() {
        tryApply();
    }

    public boolean isApplied() {
        return applied;
    }

    private void tryApply() {
        try {
            // every broker of a cluster: each keeps its own queues, dead-letter queues and address settings
            for (Brokers.Broker broker : brokers.all()) {
                for (PipelineDefinition pipeline : pipelines.all()) {
                    pipeline.steps().forEach(step -> apply(broker, step));
                }
                createTopic(broker, dev.lazarus.events.control.Events.TOPIC);
            }
            applied = true;
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "Could not set up the step queues on the broker, trying again in {0} s: {1}",
                    new Object[] {RETRY_MILLIS / 1000, e.getMessage()});
            timers.createSingleActionTimer(RETRY_MILLIS, new TimerConfig("broker-topology-retry", false));
        }
    }

    private void apply(Brokers.Broker broker, StepDefinition step) {
        RetryPolicy policy = step.retryPolicy();
        createQueue(broker, step.queue());
        createQueue(broker, step.deadLetterQueue());
        addressSettings(broker, step.queue(), JSON.createObjectBuilder()
                .add("deadLetterAddress", step.deadLetterQueue())
                .add("maxDeliveryAttempts", policy.brokerDeliveryLimit(spareDeliveries))
                .add("redeliveryDelay", policy.redeliveryDelay().toMillis())
                .add("redeliveryMultiplier", policy.multiplier())
                .add("maxRedeliveryDelay", policy.maxDelay().toMillis())
                .add("idCacheSize", duplicateIds)
                .build().toString());
        // A dead letter stays where it is until an operator acts: rolled-back requeues never move it further.
        addressSettings(broker, step.deadLetterQueue(), JSON.createObjectBuilder()
                .add("maxDeliveryAttempts", -1)
                .build().toString());
        LOG.log(Level.INFO, "Queue {0} on broker {9} ({1}/{2}): {3} attempts, backoff {4} x{5} up to {6}, dead letters to {7}"
                        + " (the broker itself gives up after {8} deliveries)",
                new Object[] {step.queue(), step.pipeline(), step.name(), policy.maxDeliveryAttempts(),
                        policy.redeliveryDelay(), policy.multiplier(), policy.maxDelay(), step.deadLetterQueue(),
                        policy.brokerDeliveryLimit(spareDeliveries), broker});
    }

    private void createQueue(Brokers.Broker broker, String name) {
        management.invoke(broker, BrokerManagement.BROKER, "createQueue", JSON.createObjectBuilder()
                .add("name", name)
                .add("address", name)
                .add("routing-type", "ANYCAST")
                .add("durable", true)
                .build().toString(), true);
    }

    /** A multicast address (a JMS topic) with no queue of its own: each subscriber brings one. Left alone if it exists. */
    private void createTopic(Brokers.Broker broker, String name) {
        try {
            management.invoke(broker, BrokerManagement.BROKER, "createAddress", name, "MULTICAST");
            LOG.log(Level.INFO, "Topic {0} created on broker {1}", new Object[] {name, broker});
        } catch (BrokerManagement.BrokerManagementException e) {
            if (!String.valueOf(e.getMessage()).contains("AMQ229204") && !String.valueOf(e.getMessage()).toLowerCase().contains("already exists")) {
                throw e;
            }
        }
    }

    private void addressSettings(Brokers.Broker broker, String address, String settings) {
        management.invoke(broker, BrokerManagement.BROKER, "addAddressSettings", address, settings);
    }
}
