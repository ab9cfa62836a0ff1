package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.deadletter.entity.DeadLetterStatus;
import dev.lazarus.pipeline.control.DeliveryOutcomes;
import dev.lazarus.pipeline.control.StepMessage;
import dev.lazarus.platform.control.Failures;
import dev.lazarus.platform.control.Metrics;
import dev.lazarus.platform.entity.Text;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What follows when a delivery may not run its step or failed for good: the consumer says what it saw
 * ({@link DeliveryOutcomes}), and this names the reason and hands it to the one dead-letter service, the DLQs and
 * the requeue service, in a transaction that commits before the consumer acknowledges the message. A consumer that died
 * in between has the same message redelivered: what its first delivery settled is recognised, not done again.
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
    DeadLetters reads;

    @Inject
    Metrics metrics;

    @PersistenceContext
    EntityManager em;

    @Inject
    Clock clock;

    static DeadLetterReason reasonFor(Unrunnable why) {
        return switch (why) {
            case MALFORMED -> DeadLetterReason.MALFORMED_MESSAGE;
            case NOT_SERVED_HERE -> DeadLetterReason.UNKNOWN_STEP;
            case NO_SUCH_RUN -> DeadLetterReason.RUN_NOT_FOUND;
            case NOT_AWAITED -> DeadLetterReason.STALE_MESSAGE;
            case ATTEMPTS_USED -> DeadLetterReason.RETRIES_EXHAUSTED;
            case OUT_OF_DEAD_LETTER_QUEUE -> throw new IllegalArgumentException("not a reason: " + why);
        };
    }

    @Override
    public boolean cameOutOfDeadLetterQueue(Message message) {
        return DeadLetterQueues.ParkedMark.of(message) != null;
    }

    @Override
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public boolean settle(Unrunnable why, Delivery delivery) {
        switch (why) {
            case OUT_OF_DEAD_LETTER_QUEUE -> {
                return retried(delivery);
            }
            case ATTEMPTS_USED -> givenUp(delivery);
            case NOT_AWAITED -> notAwaited(delivery);
            default -> refuse(reasonFor(why), delivery);
        }
        return true;
    }

    @Override
    public void failedForGood(boolean declaredPermanent, Delivery delivery, Exception failure) {
        StepMessage message = delivery.parsed();
        deadLetters.recordAlone(DeadLetterReport.stepFailed(declaredPermanent ? DeadLetterReason.NON_RETRYABLE
                : DeadLetterReason.RETRIES_EXHAUSTED, delivery.step(), message.runId(), message.generation(), delivery.messageId(),
                delivery.attempts(), failure));
    }

    /**
     * A message that can never execute gets a dead letter of its own and is parked. Delivered again after its consumer
     * died before acknowledging it, it finds that dead letter and is acknowledged: one message, one dead letter.
     */
    private void refuse(DeadLetterReason reason, Delivery delivery) {
        if (delivery.redelivered() && reads.findAboutMessage(delivery.messageId(), delivery.queue()).isPresent()) {
            LOG.log(Level.INFO, "Message {0} on {1} was refused before its consumer died; its dead letter stands",
                    new Object[] {delivery.messageId(), delivery.queue()});
            return;
        }
        StepMessage parsed = delivery.parsed();
        deadLetters.reject(DeadLetterReport.messageRejected(reason, delivery.queue(), parsed == null ? null : parsed.runId(),
                parsed == null ? null : parsed.step(), parsed == null ? null : parsed.generation(), delivery.messageId(),
                bodyOf(delivery.message()), delivery.deliveryCount(), delivery.detail(), DeadLetterReport.CONSUMER),
                delivery.message());
    }

    /** The step had used its attempts: record why (if it cannot be, the message is parked unexplained for the reconciler). */
    private void givenUp(Delivery delivery) {
        StepMessage message = delivery.parsed();
        DeadLetter deadLetter;
        try {
            deadLetter = deadLetters.recordAlone(DeadLetterReport.stepGivenUp(delivery.step(), message.runId(), message.generation(),
                    delivery.messageId(), delivery.attempts(), delivery.detail()));
        } catch (RuntimeException e) {
            metrics.diagnosticsWriteFailed("dead_letter");
            LOG.log(Level.SEVERE, "Could not record the dead letter of {0} ({1}); its message is parked in {2} without one,"
                    + " and the reconciler records it: {3}", new Object[] {message.idempotencyKey(), delivery.detail(),
                    delivery.step().deadLetterQueue(), Failures.rootMessage(e)});
            deadLetterQueues.parkUnexplained(delivery.message(), delivery.step().queue());
            return;
        }
        takeCopyOfDispatch(deadLetter.id(), delivery, "the step had used its attempts");
    }

    /** A dispatch the run is not waiting for: the dead letter of that dispatch takes it, or it is a stale message of its own. */
    private void notAwaited(Delivery delivery) {
        StepMessage message = delivery.parsed();
        Optional<DeadLetter> ofDispatch = reads.findForDispatch(message.runId(), message.generation())
                .filter(d -> message.step().equals(d.stepName()));
        if (ofDispatch.isPresent()) {
            takeCopyOfDispatch(ofDispatch.get().id(), delivery, delivery.detail());
        } else {
            refuse(DeadLetterReason.STALE_MESSAGE, delivery);
        }
    }

    /**
     * A message Lazarus parked came back (the console's Retry). A message on its own resumes nothing and is parked again;
     * one whose dead letter holds its run requeues the run; the redelivery of one whose requeue committed before its
     * consumer died is acknowledged. A mark that is not genuine (no such dead letter, another token) is ignored: the
     * message is claimed like any other.
     */
    private boolean retried(Delivery delivery) {
        DeadLetterQueues.ParkedMark mark = DeadLetterQueues.ParkedMark.of(delivery.message());
        Optional<DeadLetter> marked = mark == null ? Optional.empty() : reads.lockedParkedWith(mark);
        if (marked.isEmpty()) {
            return false;
        }
        DeadLetter deadLetter = marked.get();
        StepMessage parsed = delivery.parsed();
        if (!deadLetter.reason().aboutMessage() && delivery.redelivered() && deadLetter.status() == DeadLetterStatus.REQUEUED
                && RequeueService.REPLAYED_FROM_CONSOLE.equals(deadLetter.requeueMethod())) {
            LOG.log(Level.INFO, "Dead letter {0} was requeued by this console Retry before its consumer died; the message is"
                    + " acknowledged", deadLetter.id());
            return true;
        }
        if (deadLetter.holdsRun() && parsed != null && delivery.step() != null) {
            requeues.requeueFromConsole(deadLetter.id(), parsed.runId(), delivery.message(), delivery.step());
            return true;
        }
        parkAgain(deadLetter, delivery);
        return true;
    }

    /**
     * A copy of a dispatch this dead letter explains reached the consumer (the delivery after the one that gave
     * up, or a late copy of a dispatch that was fenced or requeued since). In the caller's transaction, with
     * the dead letter locked: if it still holds its run and has no message in the DLQ, the copy is parked there,
     * marked with its token; otherwise it adds nothing but evidence, so it is noted on the dead letter and
     * acknowledged without running; unless it is the parked message itself, delivered again because its consumer died
     * before acknowledging it: that adds nothing at all.
     */
    private void takeCopyOfDispatch(long deadLetterId, Delivery delivery, String detail) {
        DeadLetter deadLetter = em.find(DeadLetter.class, deadLetterId, LockModeType.PESSIMISTIC_WRITE);
        if (deadLetter.holdsRun() && !deadLetter.isParked()) {
            deadLetterQueues.park(delivery.message(), delivery.queue(), deadLetter);
            LOG.log(Level.INFO, "Dead letter {0}: its message is parked in {1} ({2})", new Object[] {deadLetterId,
                    deadLetter.deadLetterQueue(), detail});
            return;
        }
        if (deadLetter.isParked() && delivery.redelivered() && Objects.equals(deadLetter.messageId(), delivery.messageId())) {
            LOG.log(Level.INFO, "Dead letter {0}: its message was parked before its consumer died; the delivery is acknowledged",
                    deadLetterId);
            return;
        }
        String note = "a copy of this dispatch's message arrived on " + delivery.queue() + " and was acknowledged without running: "
                + detail + (deadLetter.isOpen() ? "" : "; this dead letter is " + deadLetter.status());
        deadLetter.addNote(DeadLetterReport.CONSUMER, Text.truncate(note, 4000), clock.instant());
        LOG.log(Level.INFO, "Dead letter {0}: {1}", new Object[] {deadLetterId, note});
    }

    /**
     * A message parked with this dead letter came back from the DLQ (an operator pressed Retry in the Artemis console)
     * and can resume nothing: a message on its own, or its dead letter no longer holds the run. It is parked again under
     * the same dead letter, which says so. In the caller's transaction, with the dead letter locked.
     */
    private void parkAgain(DeadLetter deadLetter, Delivery delivery) {
        deadLetter.addNote(DeadLetterReport.CONSOLE, "retried from the Artemis console; " + (deadLetter.reason().aboutMessage()
                ? "a message on its own resumes nothing" : "its dead letter is " + deadLetter.status() + " and holds no run")
                + ", so it was parked again in " + deadLetter.deadLetterQueue(), clock.instant());
        deadLetterQueues.park(delivery.message(), delivery.queue(), deadLetter);
    }

    private static String bodyOf(Message message) {
        try {
            return message instanceof TextMessage text ? text.getText() : null;
        } catch (JMSException e) {
            return null;
        }
    }
}
