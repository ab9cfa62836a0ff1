package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.pipeline.control.RetryPolicy;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.pipeline.control.StepExecutions;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.StepExecution;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.jms.Message;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The reconciler's judgement of one message it found in a DLQ without Lazarus's mark (the broker moved it there by
 * itself, or Lazarus parked it unexplained when it could not write the diagnostics): which dead letter explains it,
 * or which one it gets. The dead letter itself is recorded by {@link DeadLetterService}, as every other.
 */
@Stateless
public class UnexplainedMessages {

    @PersistenceContext
    EntityManager em;

    @Inject
    DeadLetterService deadLetters;

    @Inject
    DeadLetters reads;

    @Inject
    DeadLetterQueues deadLetterQueues;

    @Inject
    StepExecutions stepExecutions;

    @Inject
    Clock clock;

    @jakarta.annotation.Resource
    SessionContext session;

    /**
     * How long a run must have been still before a message of its live dispatch found in a DLQ may stop it as
     * undeliverable (its own message could otherwise be waiting out a redelivery delay, unseen by the brokers' counts).
     */
    @Inject
    @ConfigProperty(name = "lazarus.reconcile.undeliverable-after", defaultValue = "PT2M")
    Duration undeliverableAfter;

    /**
     * Settles one message the broker (not Lazarus) put into a DLQ, in a transaction of its own: finds the dead
     * letter that explains it or records one with the reason the database supports, then marks the message (it
     * is taken out and parked again with the dead letter's token) so no later pass needs to look at it.
     *
     * <p>A message without a JMS message id cannot be named by a selector, so it cannot be taken out by itself: the
     * first unmarked message without one is taken instead, and that is the one judged and marked (the next call takes
     * the next). Nothing about such a message is recorded unless it is marked in the same transaction.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public Explanation explain(StepDefinition step, DlqMessage browsed) {
        DlqMessage message = browsed;
        boolean taken = false;
        if (browsed.messageId() == null) {
            Optional<Message> withoutId = deadLetterQueues.takeOneWithoutId(browsed.broker(), step.deadLetterQueue());
            if (withoutId.isEmpty()) {
                return Explanation.NOTHING; // settled meanwhile, by another pass
            }
            try {
                message = DlqMessage.of(withoutId.get(), browsed.broker());
            } catch (jakarta.jms.JMSException e) {
                throw new jakarta.jms.JMSRuntimeException("could not read a message taken from " + step.deadLetterQueue() + ": "
                        + e.getMessage(), e.getErrorCode(), e);
            }
            taken = true;
        }
        // an id without its token is not trusted (anyone can set a property); the dispatch is
        Optional<DeadLetter> known = Optional.empty();
        if (message.runId() != null && message.generation() != null) {
            known = reads.findForDispatch(message.runId(), message.generation());
        }
        if (known.isEmpty() && message.messageId() != null) {
            known = em.createQuery("select d from DeadLetter d where d.messageId = :id", DeadLetter.class)
                    .setParameter("id", message.messageId()).setMaxResults(1).getResultStream().findFirst();
        }
        // locked before the message is touched, as a requeue does: the two never split a message between them (a
        // message without an id is already taken: a requeue meanwhile finds it gone and dispatches from the database)
        known.ifPresent(d -> em.lock(d, LockModeType.PESSIMISTIC_WRITE));
        boolean recordedNow = known.isEmpty();
        DeadLetterReport report = known.isPresent() ? null : reportFor(step, message);
        if (known.isEmpty() && report == null) {
            // not judged yet (see reportFor): left as it is for a later pass; a message taken to be judged goes back
            if (taken) {
                session.setRollbackOnly();
            }
            return Explanation.NOTHING;
        }
        DeadLetter deadLetter = known.orElseGet(() -> deadLetters.record(report));
        em.flush(); // the id must exist before the message is marked with it
        // parked again, marked: the same message with the dead letter's token, so no later pass reads it again
        if (taken || deadLetterQueues.takeMessage(message.broker(), step.deadLetterQueue(), message.messageId())) {
            deadLetterQueues.park(message.broker(), message.message(), step.queue(), deadLetter);
        } else if (recordedNow) {
            // gone meanwhile (another node settled it, an operator purged it): record nothing, so a message is never
            // explained twice; a message that stays is looked at again by the next pass
            throw new IllegalStateException("message " + message.messageId() + " in " + step.deadLetterQueue()
                    + " could not be taken to be marked; nothing recorded");
        }
        return new Explanation(deadLetter.id(), recordedNow);
    }

    /**
     * What a message found unexplained in a DLQ says, judged against the database. Only the dispatch the run waits for
     * can stop the run, and only if the message is that dispatch and not a copy of it: the broker (or Lazarus, when it
     * could not write the diagnostics) moved it here from the step's own queue, and no other message of the dispatch
     * waits in that queue or is being delivered from it. Anything else (a copy put here by hand, a message of a dispatch
     * the run has moved past, of another step or pipeline) is dead-lettered on its own and leaves the run as it is.
     * Null if it cannot be judged yet: the message looks like the live dispatch, but the run moved within
     * {@code lazarus.reconcile.undeliverable-after}, so its own message may be waiting out a redelivery delay.
     */
    private DeadLetterReport reportFor(StepDefinition step, DlqMessage message) {
        String found = "found in " + step.deadLetterQueue() + " with no diagnostics: ";
        if (message.runId() == null || message.generation() == null) {
            return DeadLetterReport.messageRejected(DeadLetterReason.MALFORMED_MESSAGE, step.queue(), null, null, null,
                    message.messageId(), message.body(), 0, found + message.problem(), DeadLetterReport.RECONCILER);
        }
        Run run = em.find(Run.class, message.runId());
        String stepName = message.step() != null ? message.step() : step.name();
        if (run == null) {
            return DeadLetterReport.messageRejected(DeadLetterReason.RUN_NOT_FOUND, step.queue(), message.runId(), stepName,
                    message.generation(), message.messageId(), message.body(), 0, found + "its run does not exist",
                    DeadLetterReport.RECONCILER);
        }
        if (!run.pipeline().equals(step.pipeline()) || !stepName.equals(step.name())) {
            return DeadLetterReport.messageRejected(DeadLetterReason.UNKNOWN_STEP, step.queue(), run.id(), stepName,
                    message.generation(), message.messageId(), message.body(), 0, found + "it names step " + stepName
                            + " of run " + run.id() + " (pipeline " + run.pipeline() + "), which this queue does not serve",
                    DeadLetterReport.RECONCILER);
        }
        if (!run.accepts(stepName, message.generation())) {
            return DeadLetterReport.messageRejected(DeadLetterReason.STALE_MESSAGE, step.queue(), run.id(), stepName,
                    message.generation(), message.messageId(), message.body(), 0, found + "its run is " + run.state()
                            + " at step " + run.currentStep() + ", dispatch " + run.generation() + ", not waiting for it",
                    DeadLetterReport.RECONCILER);
        }
        Optional<String> copy = !step.queue().equals(message.originalQueue())
                ? Optional.of("it was not moved here from " + step.queue() + " (it does not say so in "
                        + DeadLetterQueues.ORIGINAL_QUEUE + "), so it was put here by hand")
                : deadLetterQueues.otherMessageOfDispatch(step, run.id(), message.generation())
                        .map(where -> "another message of that dispatch is " + where + ", so this one is a copy");
        if (copy.isPresent()) {
            return DeadLetterReport.messageRejected(DeadLetterReason.STALE_MESSAGE, step.queue(), run.id(), stepName,
                    message.generation(), message.messageId(), message.body(), 0, found + "a copy of the dispatch run " + run.id()
                            + " is waiting for (step " + stepName + ", dispatch " + run.generation() + "): " + copy.get()
                            + "; the run goes on", DeadLetterReport.RECONCILER);
        }
        Optional<StepExecution> execution = stepExecutions.of(run.id(), stepName, run.generation());
        int attempts = execution.map(StepExecution::attempts).orElse(0);
        int failures = execution.map(StepExecution::failures).orElse(0);
        String counts = "the step started " + attempts + " time(s) and failed " + failures + " time(s), the broker delivered it "
                + execution.map(StepExecution::deliveries).orElse(0) + "+ time(s)";
        boolean exhausted = execution.map(step.retryPolicy()::givesUp).orElse(false);
        Instant lastSignOfLife = latest(run.updatedAt(), execution.map(StepExecution::lastAttemptAt).orElse(null),
                execution.map(StepExecution::heartbeatAt).orElse(null));
        if (!exhausted && clock.instant().isBefore(judgeableAt(lastSignOfLife, step.retryPolicy(), undeliverableAfter))) {
            // The dispatch may be alive: its own message may be waiting out a redelivery delay, where no count of the
            // brokers sees it. A message that looks like that dispatch is judged only once the run and its step have been
            // still for longer than the step's longest delay: a copy by then is stale (the run moved on), the real one
            // undeliverable.
            return null;
        }
        return new DeadLetterReport(exhausted ? DeadLetterReason.RETRIES_EXHAUSTED : DeadLetterReason.UNDELIVERABLE,
                step.queue(), run.id(), step.pipeline(), stepName, message.generation(), message.messageId(), null, attempts,
                null, found + (exhausted ? "the step used its attempts but the consumer could not record why (" + counts + ")"
                        : "the broker gave up before the step used its attempts (" + counts + "); requeue it once the consumer"
                        + " can take messages again"),
                null, null, false, DeadLetterReport.RECONCILER, null);
    }

    /**
     * When a message that looks like the live dispatch of a run may be judged: once the dispatch has shown no sign of
     * life (the run moved, an attempt started, a heartbeat) for the step's longest redelivery delay plus
     * {@code grace}. A step failing now has its message scheduled by the broker for up to that delay, and neither the
     * run's row nor any count of the queue shows it meanwhile.
     */
    static Instant judgeableAt(Instant lastSignOfLife, RetryPolicy policy, Duration grace) {
        return lastSignOfLife.plus(policy.maxDelay()).plus(grace);
    }

    private static Instant latest(Instant first, Instant... others) {
        Instant latest = first;
        for (Instant other : others) {
            if (other != null && other.isAfter(latest)) {
                latest = other;
            }
        }
        return latest;
    }

    /**
     * @param deadLetterId the dead letter the message was marked with; null if there was nothing left to settle
     * @param recordedNow  whether that dead letter was recorded for it now
     */
    public record Explanation(Long deadLetterId, boolean recordedNow) {
        static final Explanation NOTHING = new Explanation(null, false);
    }
}
