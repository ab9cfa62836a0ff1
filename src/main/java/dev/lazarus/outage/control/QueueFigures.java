package dev.lazarus.outage.control;

import dev.lazarus.pipeline.control.Pipelines;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.platform.control.BrokerManagement;
import dev.lazarus.platform.control.Brokers;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What the brokers say of each step's queue, summed over the brokers: messages waiting (in the queue, scheduled for a
 * redelivery, or paged, but not being delivered), in flight (being delivered to a consumer), consumers, and messages
 * in its DLQ, and on how many brokers the queue is paused. Read every few seconds by the outage watch, so the steps' API and gauges ask no broker themselves,
 * however often they are asked.
 */
@ApplicationScoped
public class QueueFigures {

    private static final Logger LOG = Logger.getLogger(QueueFigures.class.getName());

    /** One step's queue; -1 where a broker did not answer. {@code pausedOn}: the brokers that have the queue paused. */
    public record Figures(long waiting, long inFlight, long consumers, long dlqDepth, int pausedOn) {
        static final Figures UNKNOWN = new Figures(-1, -1, -1, -1, -1);
    }

    @Inject
    Pipelines pipelines;

    @Inject
    Brokers brokers;

    @Inject
    BrokerManagement management;

    private volatile Map<String, Figures> latest = Map.of();

    public Figures of(StepDefinition step) {
        return latest.getOrDefault(step.queue(), Figures.UNKNOWN);
    }

    /** Reads every step's queue on every broker (outside any transaction: management requests are not part of one). */
    public void refresh() {
        Map<String, Figures> read = new HashMap<>();
        for (var pipeline : pipelines.all()) {
            for (StepDefinition step : pipeline.steps()) {
                read.put(step.queue(), read(step));
            }
        }
        latest = Map.copyOf(read);
    }

    private Figures read(StepDefinition step) {
        long all = 0;
        long delivering = 0;
        long consumers = 0;
        long dlq = 0;
        int paused = 0;
        for (Brokers.Broker broker : brokers.all()) {
            try {
                all += management.number(broker, "queue." + step.queue(), "getMessageCount");
                delivering += management.number(broker, "queue." + step.queue(), "getDeliveringCount");
                consumers += management.number(broker, "queue." + step.queue(), "getConsumerCount");
                dlq += management.number(broker, "queue." + step.deadLetterQueue(), "getMessageCount");
                if (management.flag(broker, "queue." + step.queue(), "isPaused")) {
                    paused++;
                }
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "Could not read queue {0} on broker {1}: {2}", new Object[] {step.queue(), broker, e});
                return Figures.UNKNOWN;
            }
        }
        return new Figures(Math.max(0, all - delivering), delivering, consumers, dlq, paused);
    }
}
