package dev.lazarus.deadletter.control;

import dev.lazarus.pipeline.control.PipelineDefinition;
import dev.lazarus.pipeline.control.Pipelines;
import dev.lazarus.pipeline.control.StepDefinition;
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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Makes the dead-letter queues and the diagnostics agree, from both sides:
 * <ul>
 * <li>a message in a step's {@code DLQ.<queue>} that no dead letter explains gets one (and its run is
 * stopped): this is how a failure whose diagnostics could not be written (the database was away at the
 * last attempt) is still recorded, only later;</li>
 * <li>an open dead letter whose message is no longer in its DLQ (purged or moved by hand in the console)
 * is flagged, so nobody requeues expecting the original message.</li>
 * </ul>
 * The broker side wins on what exists (a message is never deleted here), the database side on what it
 * means. Dead letters younger than {@code lazarus.reconcile.missing-after} are not flagged: their message
 * may still be on its way to the DLQ.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class DeadLetterReconciler {

    private static final Logger LOG = Logger.getLogger(DeadLetterReconciler.class.getName());

    /** Browsed messages looked up in the database at once. */
    private static final int PAGE = 200;

    @Inject
    JMSContext jms;

    @Inject
    Pipelines pipelines;

    @Inject
    DeadLetterService deadLetters;

    @Inject
    Clock clock;

    /** Messages read per DLQ and sweep; a fuller DLQ is reconciled over several sweeps, never flagged. */
    @Inject
    @ConfigProperty(name = "lazarus.reconcile.max-messages-per-queue", defaultValue = "2000")
    int maxMessagesPerQueue;

    @Inject
    @ConfigProperty(name = "lazarus.reconcile.missing-after", defaultValue = "PT2M")
    Duration missingAfter;

    public Result reconcile() {
        Result total = Result.NONE;
        for (PipelineDefinition pipeline : pipelines.all()) {
            for (StepDefinition step : pipeline.steps()) {
                try {
                    total = total.plus(reconcile(step));
                } catch (JMSRuntimeException | EJBException e) {
                    LOG.log(Level.WARNING, "Could not reconcile {0}: {1}", new Object[] {step.deadLetterQueue(), e.getMessage()});
                }
            }
        }
        return total;
    }

    private Result reconcile(StepDefinition step) {
        Instant now = clock.instant();
        Set<Long> explained = new HashSet<>();
        int recorded = 0;
        boolean readAll;
        try (QueueBrowser browser = jms.createBrowser(jms.createQueue(step.deadLetterQueue()))) {
            Enumeration<?> messages = browser.getEnumeration();
            int read = 0;
            List<DlqMessage> page = new ArrayList<>(PAGE);
            while (messages.hasMoreElements() && read < maxMessagesPerQueue) {
                page.add(DlqMessage.of((Message) messages.nextElement()));
                read++;
                if (page.size() == PAGE || !messages.hasMoreElements() || read == maxMessagesPerQueue) {
                    recorded += settle(step, page, explained);
                    page.clear();
                }
            }
            readAll = !messages.hasMoreElements();
        } catch (JMSException e) {
            throw new JMSRuntimeException("could not browse " + step.deadLetterQueue() + ": " + e.getMessage());
        }
        int flagged = readAll ? deadLetters.checkDlqMessages(step.deadLetterQueue(), explained, now.minus(missingAfter), now) : 0;
        return new Result(recorded, flagged);
    }

    /** Looks up a page of browsed messages at once; only the ones nothing explains are settled one by one. */
    private int settle(StepDefinition step, List<DlqMessage> page, Set<Long> explained) {
        Map<DlqMessage, Long> known = deadLetters.alreadyExplained(page);
        int recorded = 0;
        for (DlqMessage message : page) {
            Long id = known.get(message);
            if (id == null) {
                DeadLetterService.Explanation explanation = deadLetters.explain(step, message);
                id = explanation.deadLetterId();
                recorded += explanation.recordedNow() ? 1 : 0;
            }
            explained.add(id);
        }
        return recorded;
    }

    /**
     * @param recorded       dead letters written for messages nothing explained
     * @param flaggedMissing open dead letters newly flagged because their message has left the DLQ
     */
    public record Result(int recorded, int flaggedMissing) {
        static final Result NONE = new Result(0, 0);

        Result plus(Result other) {
            return new Result(recorded + other.recorded, flaggedMissing + other.flaggedMissing);
        }
    }
}
