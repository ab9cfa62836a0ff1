package dev.lazarus.deadletter.control;

import dev.lazarus.pipeline.control.PipelineDefinition;
import dev.lazarus.pipeline.control.Pipelines;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.platform.control.Brokers;
import dev.lazarus.platform.control.Failures;
import dev.lazarus.platform.control.Metrics;
import jakarta.ejb.EJBException;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.Message;
import jakarta.jms.QueueBrowser;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Makes the dead-letter queues and the diagnostics agree, from both sides:
 * <ul>
 * <li>a message in a step's {@code DLQ.<queue>} that Lazarus did not park (the broker moved it by itself, or
 * it was parked unexplained because the diagnostics could not be written, or someone put it there by hand) gets its
 * dead letter, with the reason the database supports (it stops its run only if it is the very dispatch the run waits
 * for: see {@link UnexplainedMessages#explain}), and is then marked: taken out and parked again with its dead letter's
 * token. Each pass therefore reads only messages no earlier pass settled, and a queue full of settled messages (kept
 * after a discard, say) hides nothing behind them. A message sent without a JMS message id is settled too: no
 * selector can name it, so the first such message is taken and settled in its place;</li>
 * <li>an open dead letter whose parked message is no longer in its DLQ (purged or moved by hand in the console)
 * is flagged, so nobody requeues expecting the original message. The check reads a bounded page of dead
 * letters per pass, least recently checked first, so every one is checked in turn.</li>
 * </ul>
 * The broker side wins on what exists (a message is never deleted here), the database side on what it
 * means. Dead letters younger than {@code lazarus.reconcile.missing-after} are not flagged: their message
 * may still be on its way to the DLQ. A message that cannot be settled (its dead letter cannot be written)
 * is reported loudly and passed over; the next pass tries it again.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class DeadLetterReconciler {

    private static final Logger LOG = Logger.getLogger(DeadLetterReconciler.class.getName());

    /** Browsed messages looked up in the database at once. */
    private static final int PAGE = 200;

    @Inject
    Brokers brokers;

    @Inject
    Metrics metrics;

    @Inject
    Pipelines pipelines;

    @Inject
    UnexplainedMessages unexplained;

    @Inject
    ParkedMessageCheck parkedMessages;

    @Inject
    Clock clock;

    /** Unsettled messages read per DLQ and pass; more are settled by the next passes. */
    @Inject
    @ConfigProperty(name = "lazarus.reconcile.max-messages-per-queue", defaultValue = "2000")
    int maxMessagesPerQueue;

    /** Open dead letters whose parked message is checked per DLQ and pass. */
    @Inject
    @ConfigProperty(name = "lazarus.reconcile.check-per-queue", defaultValue = "500")
    int checkPerQueue;

    @Inject
    @ConfigProperty(name = "lazarus.reconcile.missing-after", defaultValue = "PT2M")
    Duration missingAfter;

    public Result reconcile() {
        Result total = Result.NONE;
        for (PipelineDefinition pipeline : pipelines.all()) {
            for (StepDefinition step : pipeline.steps()) {
                // each broker of a cluster keeps the messages that died on it
                for (Brokers.Broker broker : brokers.all()) {
                    try {
                        total = total.plus(settleUnexplained(broker, step));
                    } catch (JMSRuntimeException | EJBException e) {
                        LOG.log(Level.WARNING, "Could not reconcile {0} on broker {1}: {2}",
                                new Object[] {step.deadLetterQueue(), broker, e.getMessage()});
                    }
                }
                try {
                    Instant now = clock.instant();
                    total = total.plus(new Result(0, parkedMessages.check(step.deadLetterQueue(), now.minus(missingAfter), now,
                            checkPerQueue), 0));
                } catch (JMSRuntimeException | EJBException e) {
                    LOG.log(Level.WARNING, "Could not check the parked messages of {0}: {1}", new Object[] {step.deadLetterQueue(), e.getMessage()});
                }
            }
        }
        return total;
    }

    private Result settleUnexplained(Brokers.Broker broker, StepDefinition step) {
        int recorded = 0;
        int failed = 0;
        try (JMSContext jms = broker.open();
             QueueBrowser browser = jms.createBrowser(jms.createQueue(step.deadLetterQueue()), DeadLetterQueues.unmarked())) {
            Enumeration<?> messages = browser.getEnumeration();
            int read = 0;
            List<DlqMessage> page = new ArrayList<>(PAGE);
            while (messages.hasMoreElements() && read < maxMessagesPerQueue) {
                page.add(DlqMessage.of((Message) messages.nextElement(), broker));
                read++;
                if (page.size() == PAGE || !messages.hasMoreElements() || read == maxMessagesPerQueue) {
                    int[] settled = settle(step, page);
                    recorded += settled[0];
                    failed += settled[1];
                    page.clear();
                }
            }
        } catch (JMSException e) {
            throw new JMSRuntimeException("could not browse " + step.deadLetterQueue() + " on broker " + broker + ": " + e.getMessage());
        }
        metrics.reconcilerFinding("recorded", recorded);
        metrics.reconcilerFinding("failed", failed);
        if (failed > 0) {
            metrics.diagnosticsWriteFailed("reconciler");
        }
        return new Result(recorded, 0, failed);
    }

    /** Settles a page of browsed messages, each in its own transaction; returns {recorded, failed}. */
    private int[] settle(StepDefinition step, List<DlqMessage> page) {
        int recorded = 0;
        int failed = 0;
        for (DlqMessage message : page) {
            try {
                recorded += unexplained.explain(step, message).recordedNow() ? 1 : 0;
            } catch (RuntimeException e) {
                failed++;
                LOG.log(Level.SEVERE, "Could not record the dead letter of message {0} in {1} (run {2}); it stays there"
                        + " unexplained and the next sweep tries again: {3}", new Object[] {message.messageId(),
                        step.deadLetterQueue(), message.runId(), Failures.rootMessage(e)});
            }
        }
        return new int[] {recorded, failed};
    }

    /**
     * @param recorded       dead letters written for messages nothing explained
     * @param flaggedMissing open dead letters newly flagged because their message has left the DLQ
     * @param failed         messages whose dead letter could not be written this pass
     */
    public record Result(int recorded, int flaggedMissing, int failed) {
        static final Result NONE = new Result(0, 0, 0);

        Result plus(Result other) {
            return new Result(recorded + other.recorded, flaggedMissing + other.flaggedMissing, failed + other.failed);
        }
    }
}
