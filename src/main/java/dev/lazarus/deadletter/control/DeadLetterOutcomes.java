package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.pipeline.control.DeliveryOutcomes;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.pipeline.control.StepDispatcher;
import dev.lazarus.pipeline.control.StepMessage;
import dev.lazarus.platform.control.Failures;
import dev.lazarus.platform.control.Metrics;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;
import java.util.Optional;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What follows when a delivery does not end in its step's success: the consumer says what it saw
 * ({@link DeliveryOutcomes}), and this names the reason and hands it to the one dead-letter service, the DLQs and
 * the requeue service.
 */
@ApplicationScoped
public class DeadLetterOutcomes implements DeliveryOutcomes {

    private static final Logger LOG = Logger.getLogger(DeadLetterOutcomes.class.getName());

    @Inject
    DeadLetterService deadLetters;

    @Inject
    DeadLetterQueues deadLetterQueues;

    @Inject
    RequeueService requeues;

    @Inject
    Metrics metrics;

    static DeadLetterReason reasonFor(Refusal refusal) {
        return switch (refusal) {
            case MALFORMED -> DeadLetterReason.MALFORMED_MESSAGE;
            case NOT_SERVED_HERE -> DeadLetterReason.UNKNOWN_STEP;
            case NO_SUCH_RUN -> DeadLetterReason.RUN_NOT_FOUND;
            case NOT_AWAITED -> DeadLetterReason.STALE_MESSAGE;
        };
    }

    @Override
    public boolean settledAsParkedOnItsOwn(Message message, String queue) {
        DeadLetterQueues.ParkedMark mark = DeadLetterQueues.ParkedMark.of(message);
        return mark != null && deadLetters.settleRetriedMessageOnItsOwn(mark, message, queue);
    }

    @Override
    public boolean cameOutOfDeadLetterQueue(Message message) {
        return DeadLetterQueues.ParkedMark.of(message) != null;
    }

    @Override
    public void refuse(Refusal refusal, String queue, StepMessage parsed, Message message, int delivery, String problem) {
        deadLetters.reject(DeadLetterReport.messageRejected(reasonFor(refusal), queue, parsed == null ? null : parsed.runId(),
                parsed == null ? null : parsed.step(), parsed == null ? null : parsed.generation(),
                StepDispatcher.firstMessageId(message), bodyOf(message), delivery, problem, DeadLetterReport.CONSUMER), message);
    }

    @Override
    public void failedForGood(boolean declaredPermanent, StepDefinition step, StepMessage message, int attempt, String messageId,
                              Exception failure) {
        deadLetters.recordAlone(DeadLetterReport.stepFailed(declaredPermanent ? DeadLetterReason.NON_RETRYABLE
                : DeadLetterReason.RETRIES_EXHAUSTED, step, message.runId(), message.generation(), messageId, attempt, failure));
    }

    /** If the dead letter cannot be written, the message is parked unexplained and the reconciler records it. */
    @Override
    public void givenUp(StepDefinition step, StepMessage message, Message delivered, String messageId, int attempts, String detail) {
        DeadLetter deadLetter;
        try {
            deadLetter = deadLetters.recordAlone(DeadLetterReport.stepGivenUp(step, message.runId(), message.generation(),
                    messageId, attempts, detail));
        } catch (RuntimeException e) {
            metrics.diagnosticsWriteFailed("dead_letter");
            LOG.log(Level.SEVERE, "Could not record the dead letter of {0} ({1}); its message is parked in {2} without one,"
                    + " and the reconciler records it: {3}", new Object[] {message.idempotencyKey(), detail,
                    step.deadLetterQueue(), Failures.rootMessage(e)});
            deadLetterQueues.parkUnexplained(delivered, step.queue());
            return;
        }
        deadLetters.takeCopyOfDispatch(deadLetter.id(), delivered, step.queue(), "the step had used its attempts");
    }

    @Override
    public Optional<Long> parkedWith(Message message, UUID runId) {
        DeadLetterQueues.ParkedMark mark = DeadLetterQueues.ParkedMark.of(message);
        return mark == null ? Optional.empty() : deadLetters.parkedWith(mark, runId).map(DeadLetter::id);
    }

    @Override
    public Optional<Long> deadLetterOfDispatch(UUID runId, long generation, String step) {
        return deadLetters.findForDispatch(runId, generation).filter(d -> step.equals(d.stepName())).map(DeadLetter::id);
    }

    @Override
    public void copyOfStoppedDispatch(long deadLetterId, Message message, String queue, String detail) {
        deadLetters.takeCopyOfDispatch(deadLetterId, message, queue, detail);
    }

    @Override
    public void retriedFromConsole(long deadLetterId, UUID runId, Message message, StepDefinition step) {
        requeues.requeueFromConsole(deadLetterId, runId, message, step);
    }

    private static String bodyOf(Message message) {
        try {
            return message instanceof TextMessage text ? text.getText() : null;
        } catch (JMSException e) {
            return null;
        }
    }
}
