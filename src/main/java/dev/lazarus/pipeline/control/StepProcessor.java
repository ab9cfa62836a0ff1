package dev.lazarus.pipeline.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.deadletter.control.DeadLetterQueues;
import dev.lazarus.deadletter.control.DeadLetterReport;
import dev.lazarus.deadletter.control.DeadLetterService;
import dev.lazarus.deadletter.entity.DeadLetterReason;
import jakarta.ejb.EJBException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.Queue;
import jakarta.jms.TextMessage;
import jakarta.json.JsonObject;
import jakarta.persistence.PersistenceException;
import java.io.StringReader;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What a consumer does with one delivered message, in the consumer's JTA transaction:
 * <ol>
 * <li>messages that can never execute (not a step message, a step this queue does not serve, a run that does
 * not exist) are dead-lettered at once and parked in the queue's DLQ, without burning retries;</li>
 * <li>the ledger admits the delivery (or fences it as stale) and records the attempt;</li>
 * <li>the handler runs; on success the run moves on and the next message is sent in the same transaction;</li>
 * <li>on failure the transaction rolls back so the broker redelivers with the step's backoff, and on the last
 * attempt the diagnostics are recorded first, in their own transaction, before the broker moves the message
 * to the DLQ.</li>
 * </ol>
 */
@ApplicationScoped
public class StepProcessor {

    private static final Logger LOG = Logger.getLogger(StepProcessor.class.getName());

    private static final String ORIGINAL_QUEUE = "_AMQ_ORIG_QUEUE";

    /** About a second in all before a message's run is declared not found. */
    private static final long[] RUN_VISIBILITY_WAITS_MILLIS = {20, 80, 200, 700};

    /** What the consumer must do with its transaction. */
    public enum Outcome { COMMIT, ROLL_BACK }

    @Inject
    Pipelines pipelines;

    @Inject
    StepLedger ledger;

    @Inject
    DeadLetterService deadLetters;

    @Inject
    DeadLetterQueues deadLetterQueues;

    public Outcome process(Message message) {
        String queue = queueOf(message);
        int delivery = deliveryCount(message);
        StepMessage stepMessage;
        try {
            stepMessage = StepMessage.from(message);
        } catch (StepMessage.MalformedStepMessage e) {
            return reject(DeadLetterReason.MALFORMED_MESSAGE, queue, null, message, delivery, e.getMessage());
        }
        Optional<StepDefinition> served = pipelines.stepForQueue(queue);
        if (served.isEmpty() || !served.get().name().equals(stepMessage.step())) {
            return reject(DeadLetterReason.UNKNOWN_STEP, queue, stepMessage, message, delivery, "queue " + queue + " serves "
                    + served.map(s -> "step " + s.name() + " of pipeline " + s.pipeline()).orElse("no pipeline step")
                    + ", the message names step " + stepMessage.step());
        }
        StepDefinition step = served.get();

        Admission admission;
        try {
            admission = admit(stepMessage, step, delivery, cameFromDeadLetterQueue(message, delivery));
        } catch (EJBException e) {
            // typically a concurrent change to the run (a sweep, a requeue): let the broker redeliver and decide again
            LOG.log(Level.WARNING, "Could not admit {0} (delivery {1}), the broker will redeliver: {2}",
                    new Object[] {stepMessage.idempotencyKey(), delivery, rootMessage(e)});
            return Outcome.ROLL_BACK;
        }
        return switch (admission.verdict()) {
            case ADMITTED -> execute(new StepMessage(stepMessage.runId(), stepMessage.step(), admission.generation()),
                    step, admission, messageId(message));
            case STALE -> {
                LOG.log(Level.INFO, "Acknowledged stale message {0} without executing it: {1}",
                        new Object[] {stepMessage.idempotencyKey(), admission.detail()});
                yield Outcome.COMMIT;
            }
            case PARK -> {
                deadLetterQueues.park(message, queue, DeadLetterReason.NON_RETRYABLE,
                        deadLetters.findForDispatch(stepMessage.runId(), stepMessage.generation()).map(d -> d.id()).orElse(null));
                LOG.log(Level.INFO, "Parked {0} in {1}: {2}", new Object[] {stepMessage.idempotencyKey(), step.deadLetterQueue(), admission.detail()});
                yield Outcome.COMMIT;
            }
            case RUN_NOT_FOUND -> reject(DeadLetterReason.RUN_NOT_FOUND, queue, stepMessage, message, delivery, admission.detail());
            case WRONG_PIPELINE -> reject(DeadLetterReason.UNKNOWN_STEP, queue, stepMessage, message, delivery, admission.detail());
        };
    }

    /**
     * Admits the delivery. A run that is not there yet is looked for again for a moment before the message is
     * called an orphan: in a two-phase commit the broker's part may become visible a few milliseconds before
     * the database's, so a message can briefly arrive ahead of its run.
     */
    private Admission admit(StepMessage message, StepDefinition step, int delivery, boolean fromDeadLetterQueue) {
        Admission admission = ledger.admit(message, step, delivery, fromDeadLetterQueue);
        for (long wait : RUN_VISIBILITY_WAITS_MILLIS) {
            if (admission.verdict() != Admission.Verdict.RUN_NOT_FOUND) {
                break;
            }
            try {
                Thread.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            admission = ledger.admit(message, step, delivery, fromDeadLetterQueue);
        }
        return admission;
    }

    private Outcome execute(StepMessage message, StepDefinition step, Admission admission, String messageId) {
        int attempt = admission.attempt();
        StepContext context = new StepContext(message.runId(), step.pipeline(), step.name(), attempt,
                step.retryPolicy().maxDeliveryAttempts(), admission.requeueCount(), message.idempotencyKey(),
                parse(ledger.payload(message)));
        JsonObject output;
        try (Instance.Handle<? extends StepHandler> handler = pipelines.handlerFor(step)) {
            output = handler.get().handle(context);
            if (output == null) {
                throw new IllegalStateException(step.handler().getSimpleName() + " returned no payload");
            }
        } catch (Exception e) {
            if (isNonRetryable(e)) {
                recordFinalFailure(DeadLetterReason.NON_RETRYABLE, message, step, attempt, messageId, e);
                return Outcome.ROLL_BACK; // undo the handler's work; the redelivery is parked in the DLQ
            }
            return failed(message, step, attempt, messageId, e);
        }
        try {
            ledger.succeeded(message, step, output.toString());
            return Outcome.COMMIT;
        } catch (EJBException | PersistenceException e) {
            LOG.log(Level.WARNING, "Could not record the success of {0}, the broker will redeliver: {1}",
                    new Object[] {message.idempotencyKey(), rootMessage(e)});
            return Outcome.ROLL_BACK;
        }
    }

    private Outcome failed(StepMessage message, StepDefinition step, int attempt, String messageId, Exception failure) {
        if (step.retryPolicy().isLastAttempt(attempt)) {
            // Recorded before the broker moves the message: the broker never sees the exception.
            recordFinalFailure(DeadLetterReason.RETRIES_EXHAUSTED, message, step, attempt, messageId, failure);
        } else {
            LOG.log(Level.WARNING, "Run {0} step {1} attempt {2} of {3} failed, the broker redelivers after {4}: {5}",
                    new Object[] {message.runId(), step.name(), attempt, step.retryPolicy().maxDeliveryAttempts(),
                            step.retryPolicy().delayBefore(attempt + 1), String.valueOf(failure)});
            ledger.attemptFailed(message, step, failure);
        }
        return Outcome.ROLL_BACK;
    }

    /**
     * Records why the step gave up, in a transaction of its own. If even that fails (the database is away),
     * the consumer still rolls back: the broker moves the message to the DLQ regardless, and the reconciler
     * records the dead letter from there once the database is back. Nothing is lost, only delayed.
     */
    private void recordFinalFailure(DeadLetterReason reason, StepMessage message, StepDefinition step, int attempt,
                                    String messageId, Exception failure) {
        try {
            deadLetters.recordAlone(DeadLetterReport.stepFailed(reason, step, message.runId(), message.generation(),
                    messageId, attempt, failure));
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "Could not record the dead letter of {0} ({1}: {2}); the broker keeps the message in {3}"
                    + " and the reconciler will record it: {4}", new Object[] {message.idempotencyKey(), reason,
                    String.valueOf(failure), step.deadLetterQueue(), rootMessage(e)});
            try {
                ledger.attemptFailed(message, step, failure); // at least do not look in progress
            } catch (RuntimeException alsoFailed) {
                LOG.log(Level.FINE, "Could not record the failed attempt either", alsoFailed);
            }
        }
    }

    private Outcome reject(DeadLetterReason reason, String queue, StepMessage parsed, Message message, int delivery, String problem) {
        deadLetters.reject(DeadLetterReport.messageRejected(reason, queue, parsed == null ? null : parsed.runId(),
                parsed == null ? null : parsed.step(), messageId(message), bodyOf(message), delivery, problem), message);
        return Outcome.COMMIT; // acknowledges the original: its copy is in the DLQ
    }

    /**
     * Whether the message came back out of a dead-letter queue rather than being redelivered: the broker
     * marks what it moved to a DLQ with {@code _AMQ_ORIG_QUEUE} (and so does Lazarus when it parks one), and
     * a message retried from the console is a new copy, delivered for the first time.
     */
    static boolean cameFromDeadLetterQueue(Message message, int delivery) {
        try {
            return message.propertyExists(ORIGINAL_QUEUE) || delivery == 1;
        } catch (JMSException e) {
            return delivery == 1;
        }
    }

    /** Whether the failure, or anything in its cause chain, is declared {@link NonRetryable}. */
    static boolean isNonRetryable(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t.getClass().isAnnotationPresent(NonRetryable.class)) {
                return true;
            }
        }
        return false;
    }

    private static JsonObject parse(String payload) {
        try (var reader = JSON.createReader(new StringReader(payload))) {
            return reader.readObject();
        }
    }

    private static String queueOf(Message message) {
        try {
            return ((Queue) message.getJMSDestination()).getQueueName();
        } catch (JMSException | ClassCastException | NullPointerException e) {
            return "unknown";
        }
    }

    /** The broker's delivery count, 1 on the first delivery. */
    private static int deliveryCount(Message message) {
        try {
            return Math.max(1, message.getIntProperty("JMSXDeliveryCount"));
        } catch (JMSException | NumberFormatException e) {
            return 1;
        }
    }

    private static String messageId(Message message) {
        try {
            return message.getJMSMessageID();
        } catch (JMSException e) {
            return null;
        }
    }

    private static String bodyOf(Message message) {
        try {
            return message instanceof TextMessage text ? text.getText() : null;
        } catch (JMSException e) {
            return null;
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }
}
