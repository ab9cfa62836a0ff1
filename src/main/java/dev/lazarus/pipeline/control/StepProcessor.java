package dev.lazarus.pipeline.control;

import dev.lazarus.pipeline.control.DeliveryOutcomes.Delivery;
import dev.lazarus.pipeline.control.DeliveryOutcomes.Unrunnable;
import dev.lazarus.platform.control.Failures;
import dev.lazarus.platform.control.Metrics;
import jakarta.ejb.EJBException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * What a consumer does with one delivered message. No transaction spans the delivery: its database work commits first,
 * then the message the step's record made is sent, then the delivery is acknowledged (an idempotent consumer, see
 * {@link StepDispatcher}); a crash between any two of them redelivers the message, and its claim sees what committed.
 * <ol>
 * <li>messages that can never execute (not a step message, a step this queue does not serve, a run that does
 * not exist, a dispatch the run is not waiting for) are handed to the dead-letter side once and acknowledged, without
 * burning retries and without touching any run (a run or dispatch the database does not show yet is looked for again
 * first, and so is everything while the database cannot be reached: the message goes back to its queue to wait, see
 * {@link #notYetVisible} and {@link #awaitDatabase});</li>
 * <li>the delivery is claimed ({@link Claim}): the first delivery of a dispatch in the step's own transaction, every
 * other in a transaction of its own that counts its attempt. A delivery whose dispatch's record has committed is a
 * replay: it sends the next dispatch again if the run still waits for it, and is acknowledged;</li>
 * <li>the handler runs and the step's record commits ({@link StepTransaction}); the next dispatch is sent; the delivery
 * is acknowledged;</li>
 * <li>on failure the step's transaction rolls back and the delivery is redelivered by the broker with the step's backoff;
 * when the failure uses the step's last attempt the diagnostics are recorded first, in their own transaction, and the
 * redelivery is parked.</li>
 * </ol>
 */
@ApplicationScoped
public class StepProcessor {

    private static final Logger LOG = Logger.getLogger(StepProcessor.class.getName());

    /** About a second in all before a delivery gives up looking for a message's run (or its newest dispatch). */
    private static final long[] RUN_VISIBILITY_WAITS_MILLIS = {20, 80, 200, 700};

    /**
     * How often, at the least, the database is asked again for a message's run or dispatch before the message is
     * dead-lettered as naming something that does not exist. See {@link #notYetVisible}.
     */
    static final int VISIBILITY_CHECKS = 5;

    /**
     * Bounds on what a message may claim about its own wait (the properties below can be set by anyone who can
     * send to the queue): however it was forged, it is looked for at most this often, and its wait is counted
     * from at most this long ago, so a message can neither come back for ever nor overflow the arithmetic.
     */
    static final int MAX_VISIBILITY_CHECKS = 200;
    static final Duration MAX_VISIBILITY_WAIT = Duration.ofDays(1);
    static final Duration MIN_SEND_BACK_DELAY = Duration.ofSeconds(1);
    /** The most database waits a message is believed to have had (only paces its backoff, never ends the wait). */
    static final int MAX_DATABASE_WAITS = 1_000_000;

    /** When the database first answered that it does not show what the message names (epoch millis). */
    static final String NOT_VISIBLE_SINCE = "lazarusNotVisibleSince";
    /** How often it has answered so. */
    static final String NOT_VISIBLE_CHECKS = "lazarusNotVisibleChecks";
    /** How often the message was sent back because the database could not be reached. */
    static final String DATABASE_WAITS = "lazarusDatabaseWaits";

    /**
     * How long after the database first failed to show a message's run or dispatch the message is still
     * brought back: a transaction whose database part commits late (left in doubt by a crash or a database
     * outage, settled by transaction recovery every 10 s) must catch up before its message is called an orphan.
     */
    @Inject
    @ConfigProperty(name = "lazarus.consumer.visibility-grace", defaultValue = "PT30S")
    Duration visibilityGrace;

    /**
     * How long the first delivery of a dispatch runs in the step's transaction before its attempt is written in a
     * transaction of its own (the run then shows IN_PROGRESS with a heartbeat); see {@link InlineAttempt}. Keep it well
     * under the shortest {@code waiting-after} of the sweeper. Zero (or less) writes every attempt first, in a
     * transaction of its own (two transactions per step).
     */
    @Inject
    @ConfigProperty(name = "lazarus.consumer.in-progress-after", defaultValue = "PT1S")
    Duration inProgressAfter;

    @Inject
    StepDispatcher dispatcher;

    @Inject
    Clock clock;

    /** What the consumer does with the delivery: acknowledge it, or have the broker deliver it again (with the step's backoff). */
    public enum Outcome { ACKNOWLEDGE, REDELIVER }

    @Inject
    Pipelines pipelines;

    @Inject
    StepLedger ledger;

    @Inject
    StepTransaction transaction;

    /** What follows a delivery that may not run its step, or whose step failed for good: the dead-letter feature's business. */
    @Inject
    DeliveryOutcomes outcomes;

    @Inject
    Metrics metrics;

    /** Holds back a step's deliveries on this node while it is paused or held. */
    @Inject
    StepGate gate;

    @Inject
    Dispatches dispatches;

    /** @param queue the queue the consumer serves (from its activation config) */
    public Outcome process(Message message, String queue) {
        // whatever this delivery's transactions record to be sent afterwards names this recording's incarnation
        try (Dispatches.Recording recording = dispatches.recording()) {
            return process(message, queue, recording);
        }
    }

    private Outcome process(Message message, String queue, Dispatches.Recording recording) {
        int delivery = deliveryCount(message);
        boolean outOfDeadLetterQueue = outcomes.cameOutOfDeadLetterQueue(message);
        Optional<StepDefinition> served = pipelines.stepForQueue(queue);
        StepMessage stepMessage;
        try {
            stepMessage = StepMessage.from(message);
        } catch (StepMessage.MalformedStepMessage e) {
            stepMessage = null;
            if (!outOfDeadLetterQueue) {
                return settle(Unrunnable.MALFORMED, message, queue, served.orElse(null), null, delivery, 0, e.getMessage());
            }
        }
        if (outOfDeadLetterQueue && outcomes.settle(Unrunnable.OUT_OF_DEAD_LETTER_QUEUE, new Delivery(message, queue,
                served.orElse(null), stepMessage, delivery, 0, "retried from the Artemis console"))) {
            return Outcome.ACKNOWLEDGE;
        }
        if (stepMessage == null) {
            return settle(Unrunnable.MALFORMED, message, queue, served.orElse(null), null, delivery, 0, "not a step message");
        }
        if (served.isEmpty() || !served.get().name().equals(stepMessage.step())) {
            return settle(Unrunnable.NOT_SERVED_HERE, message, queue, served.orElse(null), stepMessage, delivery, 0, "queue " + queue
                    + " serves " + served.map(s -> "step " + s.name() + " of pipeline " + s.pipeline()).orElse("no pipeline step")
                    + ", the message names step '" + stepMessage.step() + "'");
        }
        StepDefinition step = served.get();
        if (!outOfDeadLetterQueue && gate.isClosed(step)) {
            return waitWhileNotRunning(step, stepMessage, message, queue);
        }

        // a dispatch's first delivery, as sent (not a copy sent back to wait, not a message out of a DLQ): claimed in the
        // step's own transaction
        boolean asDispatched = !outOfDeadLetterQueue && !StepDispatcher.isCopySentBack(message);
        if (asDispatched && delivery == 1 && !inProgressAfter.isNegative() && !inProgressAfter.isZero()) {
            StepTransaction.Result result;
            StepTransaction.FirstAttempt first = new StepTransaction.FirstAttempt();
            try {
                result = transaction.runFirstDelivery(stepMessage, step, delivery, recording.incarnation(), first);
            } catch (EJBException e) {
                first.abandon(e);
                // it did not commit; the redelivery is claimed on its own, and waits for the database there if it must
                LOG.log(Level.WARNING, "Could not run {0} (first delivery), the broker will redeliver: {1}",
                        new Object[] {stepMessage.idempotencyKey(), Failures.rootMessage(e)});
                return Outcome.REDELIVER;
            }
            if (!(result instanceof StepTransaction.NotFirst)) {
                return after(result, stepMessage, step, message, queue, delivery, 1, 0, recording);
            }
        }
        Claim claim;
        try {
            claim = claim(stepMessage, step, delivery, StepDispatcher.isOwnDispatch(message, stepMessage), recording.incarnation());
        } catch (EJBException e) {
            if (Failures.unavailableDependency(e).orElse(null) == Failures.Dependency.DATABASE) {
                return awaitDatabase(step, stepMessage, message, queue, e);
            }
            // typically a concurrent change to the run (a sweep, a requeue): no attempt was counted; let the broker
            // redeliver and decide again
            LOG.log(Level.WARNING, "Could not claim {0} (delivery {1}), the broker will redeliver: {2}",
                    new Object[] {stepMessage.idempotencyKey(), delivery, Failures.rootMessage(e)});
            return Outcome.REDELIVER;
        }
        return switch (claim.verdict()) {
            case RUN -> {
                StepTransaction.Result result;
                try {
                    result = transaction.runClaimed(stepMessage, step, claim, recording.incarnation());
                } catch (EJBException e) {
                    LOG.log(Level.WARNING, "Could not run {0} (delivery {1}), the broker will redeliver: {2}",
                            new Object[] {stepMessage.idempotencyKey(), delivery, Failures.rootMessage(e)});
                    yield Outcome.REDELIVER;
                }
                yield after(result, new StepMessage(stepMessage.runId(), stepMessage.step(), claim.generation()), step, message,
                        queue, delivery, claim.attempt(), claim.failuresBefore(), recording);
            }
            case REPLAY -> replay(claim, stepMessage, step, recording);
            case GIVE_UP -> settle(Unrunnable.ATTEMPTS_USED, message, queue, step, stepMessage, delivery, claim.attempt(), claim.detail());
            case NOT_AWAITED, WRONG_PIPELINE -> settle(claim.verdict() == Claim.Verdict.NOT_AWAITED ? Unrunnable.NOT_AWAITED
                    : Unrunnable.NOT_SERVED_HERE, message, queue, step, stepMessage, delivery, 0, claim.detail());
            case AHEAD -> notYetVisible(Unrunnable.NOT_AWAITED, queue, step, stepMessage, message, delivery, claim.detail());
            case RUN_NOT_FOUND -> notYetVisible(Unrunnable.NO_SUCH_RUN, queue, step, stepMessage, message, delivery, claim.detail());
        };
    }

    /** What follows the step's transaction: send what it recorded, or have the failure recorded and the delivery redelivered. */
    private Outcome after(StepTransaction.Result result, StepMessage message, StepDefinition step, Message delivered, String queue,
                          int delivery, int attempt, int failuresBefore, Dispatches.Recording recording) {
        if (result instanceof StepTransaction.Succeeded succeeded) {
            succeeded.next().ifPresent(next -> send(next, recording));
            return Outcome.ACKNOWLEDGE;
        }
        if (result instanceof StepTransaction.Failed failed) {
            failed.writeAttempt();
            Delivery failedDelivery = new Delivery(delivered, queue, step, message, delivery, attempt, null);
            if (failed.declaredPermanent()) {
                recordFinalFailure(true, failedDelivery, failed.failure());
            } else {
                failed(failedDelivery, failuresBefore, failed.failure());
            }
            return Outcome.REDELIVER; // the redelivery is retried, or parked in the DLQ if the step gave up
        }
        if (result instanceof StepTransaction.MovedOn movedOn) {
            LOG.log(Level.INFO, "{0}; its redelivery is settled as a copy of a dispatch the run moved past", movedOn.why());
        }
        return Outcome.REDELIVER; // not recorded, moved on, or interrupted at the gate: nothing committed
    }

    /**
     * Sends the dispatch a committed record made (the step's, or a replay's), before the delivery is acknowledged. If
     * the broker does not take it, the run names the recording's incarnation as its sender: the dispatch recovery sends
     * it once that incarnation is retired, so the delivery is acknowledged all the same (redelivering it would spend the
     * broker's deliveries on a step that has succeeded).
     */
    private void send(StepDispatcher.Dispatch next, Dispatches.Recording recording) {
        if (!recording.send(List.of(next))) {
            LOG.log(Level.INFO, "{0} is recorded but could not be sent now; the dispatch recovery sends it", next.message().idempotencyKey());
        }
    }

    /** The step's record of this dispatch committed before: its handler does not run again; what it dispatched is sent again. */
    private Outcome replay(Claim claim, StepMessage message, StepDefinition step, Dispatches.Recording recording) {
        LOG.log(Level.INFO, "{0} is a replay: {1}", new Object[] {message.idempotencyKey(), claim.detail()});
        metrics.stepReplayed(step.pipeline(), step.name());
        if (claim.resend() != null) {
            send(claim.resend(), recording);
        }
        return Outcome.ACKNOWLEDGE;
    }

    /** Hands a delivery that may not run its step to the dead-letter side; acknowledged once that has committed. */
    private Outcome settle(Unrunnable why, Message message, String queue, StepDefinition step, StepMessage parsed, int delivery,
                           int attempts, String detail) {
        outcomes.settle(why, new Delivery(message, queue, step, parsed, delivery, attempts, detail));
        return Outcome.ACKNOWLEDGE;
    }

    /**
     * Claims the delivery. A run (or a dispatch of it) that is not there yet is looked for again for a moment before
     * the message is called an orphan: a message can briefly arrive ahead of what it names (a transaction left in doubt
     * by an earlier crash, settled by recovery).
     */
    private Claim claim(StepMessage message, StepDefinition step, int delivery, boolean ownDispatch, String incarnation) {
        Claim claim = ledger.claim(message, step, delivery, ownDispatch, incarnation);
        for (long wait : RUN_VISIBILITY_WAITS_MILLIS) {
            if (claim.verdict() != Claim.Verdict.RUN_NOT_FOUND && claim.verdict() != Claim.Verdict.AHEAD) {
                break;
            }
            try {
                Thread.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            claim = ledger.claim(message, step, delivery, ownDispatch, incarnation);
        }
        return claim;
    }

    /**
     * The database does not show the run or dispatch the message names. Until it has said so at least
     * {@value #VISIBILITY_CHECKS} times over {@code lazarus.consumer.visibility-grace}, the message goes back to its
     * queue for a later look (after the step's backoff), carrying when and how often it was looked for: a copy sent
     * before the original is acknowledged, so the wait spends none of the broker's deliveries however long
     * an outage before it was. Counting deliveries instead failed the database drill: a step message rolled back
     * through a 30 s outage had used them up when the database came back, and was dead-lettered a moment before
     * transaction recovery committed the dispatch it named. After the grace, it is dead-lettered on its own.
     */
    private Outcome notYetVisible(Unrunnable refusal, String queue, StepDefinition step, StepMessage stepMessage,
                                  Message message, int delivery, String detail) {
        long now = clock.millis();
        // what the message says it has been through, within bounds: a forged "since" in the future or a huge or
        // negative count must not keep it coming back for ever
        long since = Math.max(now - MAX_VISIBILITY_WAIT.toMillis(), Math.min(longProperty(message, NOT_VISIBLE_SINCE, now), now));
        int checks = (int) Math.max(0, Math.min(longProperty(message, NOT_VISIBLE_CHECKS, 0), MAX_VISIBILITY_CHECKS)) + 1;
        Duration looked = Duration.ofMillis(now - since);
        boolean graceLeft = checks < VISIBILITY_CHECKS || looked.compareTo(visibilityGrace) < 0;
        if (graceLeft && checks < MAX_VISIBILITY_CHECKS) {
            Duration delay = sendBackDelay(step, checks);
            LOG.log(Level.INFO, "{0} names a run or dispatch the database does not show yet ({1}); looked for {2} time(s) over {3} s,"
                    + " looking again in {4} ms", new Object[] {stepMessage.idempotencyKey(), detail, checks, looked.toSeconds(), delay.toMillis()});
            dispatcher.sendBackLater((TextMessage) message, queue, delay, Map.of(NOT_VISIBLE_SINCE, since, NOT_VISIBLE_CHECKS, checks));
            return Outcome.ACKNOWLEDGE;
        }
        return settle(refusal, message, queue, step, stepMessage, Math.max(delivery, checks), 0,
                detail + " (not shown after " + checks + " looks over " + looked.toSeconds() + " s)");
    }

    /**
     * The database cannot be reached, so nothing can be decided about the message. It goes back to its queue
     * for a later look (the step's backoff, by how often it has waited), sent before the original is acknowledged:
     * an outage however long spends none of the broker's deliveries, so the broker never gives up on a
     * healthy run's message and moves it to the DLQ while the database is away.
     */
    private Outcome awaitDatabase(StepDefinition step, StepMessage stepMessage, Message message, String queue, EJBException failure) {
        int waits = (int) Math.max(0, Math.min(longProperty(message, DATABASE_WAITS, 0), MAX_DATABASE_WAITS)) + 1;
        Duration delay = sendBackDelay(step, waits);
        LOG.log(Level.WARNING, "Could not admit {0}: the database cannot be reached ({1}); waited {2} time(s), looking again in {3} ms",
                new Object[] {stepMessage.idempotencyKey(), Failures.rootMessage(failure), waits, delay.toMillis()});
        dispatcher.sendBackLater((TextMessage) message, queue, delay, Map.of(DATABASE_WAITS, waits));
        return Outcome.ACKNOWLEDGE;
    }

    /**
     * The step is paused or held, and its queue on the broker with it, but a consumer had this message in its buffer
     * (the client takes messages ahead of the ones it runs) before the pause reached the broker. It goes back to its
     * queue, where it waits with the others, before it is acknowledged: no attempt counted, none of the
     * broker's deliveries spent, the step's handler not called. (A held step's failures roll their sessions back, which
     * empties the buffers; an operator's pause of a healthy step with a backlog is where this matters.)
     */
    private Outcome waitWhileNotRunning(StepDefinition step, StepMessage stepMessage, Message message, String queue) {
        LOG.log(Level.FINE, "{0}: step {1} of {2} is not running; the message goes back to wait in its queue",
                new Object[] {stepMessage.idempotencyKey(), step.name(), step.pipeline()});
        dispatcher.sendBackLater((TextMessage) message, queue, sendBackDelay(step, 1), Map.of());
        return Outcome.ACKNOWLEDGE;
    }

    /**
     * How long a message sent back to wait stays away: the step's backoff, but at least a second, so that a policy
     * without delay neither spins while the database is away nor spends its looks before the grace has passed.
     */
    private static Duration sendBackDelay(StepDefinition step, int times) {
        Duration backoff = step.retryPolicy().delayBefore(times + 1);
        return backoff.compareTo(MIN_SEND_BACK_DELAY) < 0 ? MIN_SEND_BACK_DELAY : backoff;
    }

    private static long longProperty(Message message, String name, long otherwise) {
        try {
            return message.propertyExists(name) ? message.getLongProperty(name) : otherwise;
        } catch (JMSException | RuntimeException notALong) {
            return otherwise; // set by hand to something else: start counting afresh
        }
    }

    /** A retryable failure: recorded on the run if it leaves attempts, else the step gives up (see {@link #recordFinalFailure}). */
    private void failed(Delivery delivery, int failuresBefore, Exception failure) {
        StepDefinition step = delivery.step();
        StepMessage message = delivery.parsed();
        if (step.retryPolicy().exhaustedBy(failuresBefore + 1)) {
            // Recorded before the message is parked: the broker never sees the exception.
            recordFinalFailure(false, delivery, failure);
            return;
        }
        LOG.log(Level.WARNING, "Run {0} step {1} attempt {2} failed ({3} of {4} failures allowed), the broker redelivers"
                        + " after {5}: {6}", new Object[] {message.runId(), step.name(), delivery.attempts(), failuresBefore + 1,
                        step.retryPolicy().maxDeliveryAttempts(), step.retryPolicy().delayBefore(failuresBefore + 2),
                        String.valueOf(failure)});
        metrics.stepRetried(step.pipeline(), step.name());
        try {
            ledger.attemptFailed(message, step, delivery.attempts(), failure);
        } catch (RuntimeException e) {
            metrics.diagnosticsWriteFailed("failed_attempt");
            LOG.log(Level.WARNING, "Could not record the failed attempt of {0}; it counts as interrupted: {1}",
                    new Object[] {message.idempotencyKey(), Failures.rootMessage(e)});
        }
    }

    /**
     * Records why the step gave up, in a transaction of its own; the redelivery is then parked. If even that
     * fails (the database is away), the failure is still counted if it can be, and the next delivery that finds
     * the attempts used up tries again, or parks the message unexplained for the reconciler.
     */
    private void recordFinalFailure(boolean declaredPermanent, Delivery delivery, Exception failure) {
        StepMessage message = delivery.parsed();
        try {
            outcomes.failedForGood(declaredPermanent, delivery, failure);
        } catch (RuntimeException e) {
            metrics.diagnosticsWriteFailed("dead_letter");
            LOG.log(Level.SEVERE, "Could not record the dead letter of {0} ({1}: {2}); its next delivery tries again: {3}",
                    new Object[] {message.idempotencyKey(), declaredPermanent ? "declared permanent" : "attempts used",
                            String.valueOf(failure), Failures.rootMessage(e)});
            try {
                ledger.attemptFailed(message, delivery.step(), delivery.attempts(), failure); // counted, so the next delivery gives up instead of retrying
            } catch (RuntimeException alsoFailed) {
                metrics.diagnosticsWriteFailed("failed_attempt");
                LOG.log(Level.SEVERE, "Could not record the failed attempt of {0} either: {1}",
                        new Object[] {message.idempotencyKey(), Failures.rootMessage(alsoFailed)});
            }
        }
    }

    /** Whether the failure, or anything in its cause chain, is declared {@link NonRetryable}. */
    public static boolean isNonRetryable(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t.getClass().isAnnotationPresent(NonRetryable.class)) {
                return true;
            }
        }
        return false;
    }

    /** The broker's delivery count, 1 on the first delivery. */
    private static int deliveryCount(Message message) {
        try {
            return Math.max(1, message.getIntProperty("JMSXDeliveryCount"));
        } catch (JMSException | NumberFormatException e) {
            return 1;
        }
    }
}
