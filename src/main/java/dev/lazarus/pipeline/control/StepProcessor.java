package dev.lazarus.pipeline.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.pipeline.control.DeliveryOutcomes.Refusal;
import dev.lazarus.platform.control.Failures;
import dev.lazarus.platform.control.Metrics;
import jakarta.annotation.Resource;
import jakarta.ejb.EJBException;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;
import jakarta.json.JsonObject;
import jakarta.persistence.PersistenceException;
import java.io.StringReader;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * What a consumer does with one delivered message, in the consumer's JTA transaction:
 * <ol>
 * <li>messages that can never execute (not a step message, a step this queue does not serve, a run that does
 * not exist, a dispatch the run is not waiting for) are dead-lettered on their own and parked in the queue's
 * DLQ, without burning retries and without touching any run (a run or dispatch the database does not show
 * yet is looked for again first, and so is everything while the database cannot be reached: the message goes
 * back to its queue to wait, see {@link #notYetVisible} and {@link #awaitDatabase});</li>
 * <li>the ledger admits the delivery (counting the attempt) or says what else it is: the redelivery of a
 * dispatch that was just dead-lettered (parked now), a console Retry (a requeue), a step whose attempts are
 * used up (dead-lettered and parked). The first delivery of a dispatch is admitted in this transaction and its
 * attempt written with its outcome (one transaction per step, see {@link StepLedger} and {@link InlineAttempt});
 * every other delivery is admitted in a transaction of its own first;</li>
 * <li>the handler runs; on success the run moves on and the next message is sent in the same transaction;</li>
 * <li>on failure the transaction rolls back so the broker redelivers with the step's backoff; when the
 * failure uses the step's last attempt the diagnostics are recorded first, in their own transaction, and the
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
     * How long the first delivery of a dispatch runs in the consumer's transaction before its attempt is written in
     * a transaction of its own (the run then shows IN_PROGRESS with a heartbeat); see {@link InlineAttempt}. Keep it
     * well under the shortest {@code waiting-after} of the sweeper. Zero (or less) writes every attempt first, in a
     * transaction of its own (two transactions per step).
     */
    @Inject
    @ConfigProperty(name = "lazarus.consumer.in-progress-after", defaultValue = "PT1S")
    Duration inProgressAfter;

    @Resource
    ManagedScheduledExecutorService timers;

    @Inject
    StepDispatcher dispatcher;

    @Inject
    Clock clock;

    /** What the consumer must do with its transaction. */
    public enum Outcome { COMMIT, ROLL_BACK }

    @Inject
    Pipelines pipelines;

    @Inject
    StepLedger ledger;

    /** What follows a delivery that does not end in its step's success: the dead-letter feature's business. */
    @Inject
    DeliveryOutcomes outcomes;

    @Inject
    Metrics metrics;

    @Inject
    Payloads payloads;

    /** Who watches each step's health (the automatic hold): told of every success and every retryable failure. */
    @Inject
    StepHealth health;

    /** Holds back a step's deliveries on this node while it ramps up after a hold. */
    @Inject
    StepGate gate;

    /** @param queue the queue the consumer serves (from its activation config) */
    public Outcome process(Message message, String queue) {
        int delivery = deliveryCount(message);
        boolean outOfDeadLetterQueue = outcomes.cameOutOfDeadLetterQueue(message);
        if (outOfDeadLetterQueue && outcomes.settledAsParkedOnItsOwn(message, queue)) {
            return Outcome.COMMIT;
        }
        StepMessage stepMessage;
        try {
            stepMessage = StepMessage.from(message);
        } catch (StepMessage.MalformedStepMessage e) {
            return refuse(Refusal.MALFORMED, queue, null, message, delivery, e.getMessage());
        }
        Optional<StepDefinition> served = pipelines.stepForQueue(queue);
        if (served.isEmpty() || !served.get().name().equals(stepMessage.step())) {
            return refuse(Refusal.NOT_SERVED_HERE, queue, stepMessage, message, delivery, "queue " + queue + " serves "
                    + served.map(s -> "step " + s.name() + " of pipeline " + s.pipeline()).orElse("no pipeline step")
                    + ", the message names step '" + stepMessage.step() + "'");
        }
        StepDefinition step = served.get();
        if (!outOfDeadLetterQueue && gate.isClosed(step)) {
            return waitWhileNotRunning(step, stepMessage, message, queue);
        }

        // a dispatch's first delivery, as sent (not a copy sent back to wait, not a message out of a DLQ)
        boolean asDispatched = !outOfDeadLetterQueue && !StepDispatcher.isCopySentBack(message);
        if (asDispatched && delivery == 1 && !inProgressAfter.isNegative() && !inProgressAfter.isZero()) {
            Optional<Admission> inline;
            try {
                inline = ledger.admitFirstDelivery(stepMessage, step);
            } catch (EJBException e) {
                // the transaction is marked for rollback; the redelivery is admitted on its own, and waits for the
                // database there if it must
                LOG.log(Level.WARNING, "Could not admit {0} (first delivery), the broker will redeliver: {1}",
                        new Object[] {stepMessage.idempotencyKey(), Failures.rootMessage(e)});
                return Outcome.ROLL_BACK;
            }
            if (inline.isPresent()) {
                Instant startedAt = clock.instant();
                InlineAttempt attempt = InlineAttempt.start(stepMessage.idempotencyKey(), delivery, startedAt,
                        () -> ledger.recordAttempt(stepMessage, step, delivery, startedAt), timers, inProgressAfter);
                try {
                    return execute(stepMessage, step, inline.get(), message, attempt);
                } finally {
                    attempt.finish(); // whatever happened (an Error, say), its timer never outlives the delivery
                }
            }
        }
        Admission admission;
        try {
            admission = admit(stepMessage, step, delivery, message);
        } catch (EJBException e) {
            if (Failures.unavailableDependency(e).orElse(null) == Failures.Dependency.DATABASE) {
                return awaitDatabase(step, stepMessage, message, queue, e);
            }
            // typically a concurrent change to the run (a sweep, a requeue): no attempt was counted; let the broker
            // redeliver and decide again
            LOG.log(Level.WARNING, "Could not admit {0} (delivery {1}), the broker will redeliver: {2}",
                    new Object[] {stepMessage.idempotencyKey(), delivery, Failures.rootMessage(e)});
            return Outcome.ROLL_BACK;
        }
        return switch (admission.verdict()) {
            case ADMITTED -> execute(new StepMessage(stepMessage.runId(), stepMessage.step(), admission.generation()),
                    step, admission, message, null);
            case GIVE_UP -> {
                outcomes.givenUp(step, stepMessage, message, StepDispatcher.firstMessageId(message), admission.attempt(),
                        admission.detail());
                yield Outcome.COMMIT;
            }
            case TO_DEAD_LETTER -> {
                outcomes.copyOfStoppedDispatch(admission.deadLetterId(), message, queue, admission.detail());
                yield Outcome.COMMIT;
            }
            case CONSOLE_RETRY -> {
                outcomes.retriedFromConsole(admission.deadLetterId(), stepMessage.runId(), message, step);
                yield Outcome.COMMIT;
            }
            case STALE -> refuse(Refusal.NOT_AWAITED, queue, stepMessage, message, delivery, admission.detail());
            case AHEAD -> notYetVisible(Refusal.NOT_AWAITED, queue, step, stepMessage, message, delivery, admission.detail());
            case RUN_NOT_FOUND -> notYetVisible(Refusal.NO_SUCH_RUN, queue, step, stepMessage, message, delivery,
                    admission.detail());
            case WRONG_PIPELINE -> refuse(Refusal.NOT_SERVED_HERE, queue, stepMessage, message, delivery, admission.detail());
        };
    }

    /**
     * Admits the delivery. A run (or a dispatch of it) that is not there yet is looked for again for a moment
     * before the message is called an orphan: in a two-phase commit the broker's part may become visible a few
     * milliseconds before the database's, so a message can briefly arrive ahead of what it names.
     */
    private Admission admit(StepMessage message, StepDefinition step, int delivery, Message delivered) {
        Admission admission = ledger.admit(message, step, delivery, delivered);
        for (long wait : RUN_VISIBILITY_WAITS_MILLIS) {
            if (admission.verdict() != Admission.Verdict.RUN_NOT_FOUND && admission.verdict() != Admission.Verdict.AHEAD) {
                break;
            }
            try {
                Thread.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            admission = ledger.admit(message, step, delivery, delivered);
        }
        return admission;
    }

    /**
     * The database does not show the run or dispatch the message names. Until it has said so at least
     * {@value #VISIBILITY_CHECKS} times over {@code lazarus.consumer.visibility-grace}, the message goes back to its
     * queue for a later look (after the step's backoff), carrying when and how often it was looked for: a copy in
     * the same transaction that acknowledges it, so the wait spends none of the broker's deliveries however long
     * an outage before it was. Counting deliveries instead failed the database drill: a step message rolled back
     * through a 30 s outage had used them up when the database came back, and was dead-lettered a moment before
     * transaction recovery committed the dispatch it named. After the grace, it is dead-lettered on its own.
     */
    private Outcome notYetVisible(Refusal refusal, String queue, StepDefinition step, StepMessage stepMessage,
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
            return Outcome.COMMIT;
        }
        return refuse(refusal, queue, stepMessage, message, Math.max(delivery, checks),
                detail + " (not shown after " + checks + " looks over " + looked.toSeconds() + " s)");
    }

    /**
     * The database cannot be reached, so nothing can be decided about the message. It goes back to its queue
     * for a later look (the step's backoff, by how often it has waited), in the transaction that acknowledges
     * it: an outage however long spends none of the broker's deliveries, so the broker never gives up on a
     * healthy run's message and moves it to the DLQ while the database is away.
     */
    private Outcome awaitDatabase(StepDefinition step, StepMessage stepMessage, Message message, String queue, EJBException failure) {
        int waits = (int) Math.max(0, Math.min(longProperty(message, DATABASE_WAITS, 0), MAX_DATABASE_WAITS)) + 1;
        Duration delay = sendBackDelay(step, waits);
        LOG.log(Level.WARNING, "Could not admit {0}: the database cannot be reached ({1}); waited {2} time(s), looking again in {3} ms",
                new Object[] {stepMessage.idempotencyKey(), Failures.rootMessage(failure), waits, delay.toMillis()});
        dispatcher.sendBackLater((TextMessage) message, queue, delay, Map.of(DATABASE_WAITS, waits));
        return Outcome.COMMIT;
    }

    /**
     * The step is paused or held, and its queue on the broker with it, but a consumer had this message in its buffer
     * (the client takes messages ahead of the ones it runs) before the pause reached the broker. It goes back to its
     * queue, where it waits with the others, in the transaction that acknowledges it: no attempt counted, none of the
     * broker's deliveries spent, the step's handler not called. (A held step's failures roll their sessions back, which
     * empties the buffers; an operator's pause of a healthy step with a backlog is where this matters.)
     */
    private Outcome waitWhileNotRunning(StepDefinition step, StepMessage stepMessage, Message message, String queue) {
        LOG.log(Level.FINE, "{0}: step {1} of {2} is not running; the message goes back to wait in its queue",
                new Object[] {stepMessage.idempotencyKey(), step.name(), step.pipeline()});
        dispatcher.sendBackLater((TextMessage) message, queue, sendBackDelay(step, 1), Map.of());
        return Outcome.COMMIT;
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

    /**
     * Runs the handler and records its outcome.
     *
     * @param inline the attempt of a first delivery admitted inline, not written yet; null if it was admitted on its own
     */
    private Outcome execute(StepMessage message, StepDefinition step, Admission admission, Message delivered, InlineAttempt inline) {
        int attempt = admission.attempt();
        StepContext context = new StepContext(message.runId(), step.pipeline(), step.name(), attempt,
                step.retryPolicy().maxDeliveryAttempts(), admission.failuresBefore(), admission.requeueCount(),
                message.idempotencyKey(), parse(ledger.payload(message)));
        String output;
        StepGate.Pass pass;
        try {
            pass = gate.enter(step);
        } catch (InterruptedException shuttingDown) {
            // waiting at the ramp-up's gate, not running the step: its transaction is rolled back, admission included,
            // so the run is charged no attempt and the hold counts no failure
            Thread.currentThread().interrupt();
            return Outcome.ROLL_BACK;
        }
        long started = System.nanoTime();
        try (pass; Instance.Handle<? extends StepHandler> handler = pipelines.handlerFor(step)) {
            JsonObject result = handler.get().handle(context);
            if (result == null) {
                throw new IllegalStateException(step.handler().getSimpleName() + " returned no payload");
            }
            output = payloads.output(result, step.name());
        } catch (Exception e) {
            metrics.stepExecuted(step.pipeline(), step.name(), false, Duration.ofNanos(System.nanoTime() - started));
            if (inline != null) {
                inline.writeNow(); // a failure is recorded against a written attempt, as for any other delivery
            }
            if (isNonRetryable(e)) {
                recordFinalFailure(true, message, step, attempt, StepDispatcher.firstMessageId(delivered), e);
                return Outcome.ROLL_BACK; // undo the handler's work; the redelivery is parked in the DLQ
            }
            health.failedRetryably(step, e); // what the automatic hold counts: a failure retrying may cure
            return failed(message, step, admission, StepDispatcher.firstMessageId(delivered), e);
        }
        health.succeeded(step);
        metrics.stepExecuted(step.pipeline(), step.name(), true, Duration.ofNanos(System.nanoTime() - started));
        if (inline != null) {
            inline.finish();
        }
        try {
            ledger.succeeded(message, step, output, inline);
            return Outcome.COMMIT;
        } catch (StepLedger.RunMovedOn fenced) {
            // the fencing at work (an operator's stop, a sweep, a requeue while the step ran): nothing failed to be written
            LOG.log(Level.INFO, "{0}; its redelivery is settled as a copy of a dispatch the run moved past", fenced.getMessage());
            return Outcome.ROLL_BACK;
        } catch (EJBException | PersistenceException e) {
            metrics.diagnosticsWriteFailed("step_success");
            LOG.log(Level.WARNING, "Could not record the success of {0}, the broker will redeliver: {1}",
                    new Object[] {message.idempotencyKey(), Failures.rootMessage(e)});
            return Outcome.ROLL_BACK;
        }
    }

    private Outcome failed(StepMessage message, StepDefinition step, Admission admission, String messageId, Exception failure) {
        int attempt = admission.attempt();
        if (step.retryPolicy().exhaustedBy(admission.failuresBefore() + 1)) {
            // Recorded before the message is parked: the broker never sees the exception.
            recordFinalFailure(false, message, step, attempt, messageId, failure);
        } else {
            LOG.log(Level.WARNING, "Run {0} step {1} attempt {2} failed ({3} of {4} failures allowed), the broker redelivers"
                            + " after {5}: {6}", new Object[] {message.runId(), step.name(), attempt, admission.failuresBefore() + 1,
                            step.retryPolicy().maxDeliveryAttempts(), step.retryPolicy().delayBefore(admission.failuresBefore() + 2),
                            String.valueOf(failure)});
            metrics.stepRetried(step.pipeline(), step.name());
            try {
                ledger.attemptFailed(message, step, failure);
            } catch (RuntimeException e) {
                metrics.diagnosticsWriteFailed("failed_attempt");
                LOG.log(Level.WARNING, "Could not record the failed attempt of {0}; it counts as interrupted: {1}",
                        new Object[] {message.idempotencyKey(), Failures.rootMessage(e)});
            }
        }
        return Outcome.ROLL_BACK;
    }

    /**
     * Records why the step gave up, in a transaction of its own; the redelivery is then parked. If even that
     * fails (the database is away), the failure is still counted if it can be, and the next delivery that finds
     * the attempts used up tries again, or parks the message unexplained for the reconciler.
     */
    private void recordFinalFailure(boolean declaredPermanent, StepMessage message, StepDefinition step, int attempt,
                                    String messageId, Exception failure) {
        try {
            outcomes.failedForGood(declaredPermanent, step, message, attempt, messageId, failure);
        } catch (RuntimeException e) {
            metrics.diagnosticsWriteFailed("dead_letter");
            LOG.log(Level.SEVERE, "Could not record the dead letter of {0} ({1}: {2}); its next delivery tries again: {3}",
                    new Object[] {message.idempotencyKey(), declaredPermanent ? "declared permanent" : "attempts used",
                            String.valueOf(failure), Failures.rootMessage(e)});
            try {
                ledger.attemptFailed(message, step, failure); // counted, so the next delivery gives up instead of retrying
            } catch (RuntimeException alsoFailed) {
                metrics.diagnosticsWriteFailed("failed_attempt");
                LOG.log(Level.SEVERE, "Could not record the failed attempt of {0} either: {1}",
                        new Object[] {message.idempotencyKey(), Failures.rootMessage(alsoFailed)});
            }
        }
    }

    private Outcome refuse(Refusal refusal, String queue, StepMessage parsed, Message message, int delivery, String problem) {
        outcomes.refuse(refusal, queue, parsed, message, delivery, problem);
        return Outcome.COMMIT; // acknowledges the original: its copy is in the DLQ
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

    private static JsonObject parse(String payload) {
        try (var reader = JSON.createReader(new StringReader(payload))) {
            return reader.readObject();
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
}
