package dev.lazarus.pipeline.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.platform.control.Failures;
import dev.lazarus.platform.control.Metrics;
import jakarta.annotation.Resource;
import jakarta.ejb.EJBException;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.persistence.PersistenceException;
import java.sql.Connection;
import java.sql.SQLException;
import java.io.StringReader;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * A step's database transaction: the handler and the step's record commit together, or neither does. It holds the
 * database only (one phase, no transaction log): the next step's message is sent after it commits, and the delivery
 * acknowledged after that ({@link StepProcessor}). A handler that writes to Lazarus's database through JPA writes in
 * this transaction, so its work is undone with a failed attempt and committed exactly once with the step's record.
 */
@Stateless
public class StepTransaction {

    private static final Logger LOG = Logger.getLogger(StepTransaction.class.getName());

    /** What became of the step in its transaction. */
    public sealed interface Result {
    }

    /** The handler succeeded and its record committed; {@code next} is the dispatch to send now (none: the run completed). */
    public record Succeeded(Optional<StepDispatcher.Dispatch> next) implements Result {
    }

    /** The handler failed; its transaction rolled back. Whether it declared the failure permanent. */
    public record Failed(Exception failure, boolean declaredPermanent, InlineAttempt unwritten) implements Result {

        /**
         * Writes a first delivery's attempt, if it was not written yet, once the step's transaction has ended: the failure
         * is recorded against a written attempt, as for any other delivery. Written while the step's call was still
         * open, its connection went back to the pool after the container had closed that call (the connection manager
         * logged it as unknown, IJ000311, with a stack trace, for every failing first delivery).
         */
        void writeAttempt() {
            if (unwritten != null) {
                try {
                    unwritten.writeNow(StepAttempts.Ending.failed(failure, declaredPermanent));
                } finally {
                    unwritten.finish();
                }
            }
        }
    }

    /**
     * The run moved past the dispatch while the step ran (stopped, swept, requeued): the outcome was discarded and the
     * transaction rolled back; the redelivery is settled by the dead letter that fenced it.
     */
    public record MovedOn(String why) implements Result {
    }

    /** The outcome could not be recorded (the database refused, or could not be reached): rolled back, to be redelivered. */
    public record NotRecorded(String why) implements Result {
    }

    /** Stopped at the ramp-up's gate before the handler ran (the server is shutting down): rolled back, nothing charged. */
    public record Interrupted() implements Result {
    }

    /** The delivery is not a fresh dispatch's first (the run has an attempt of it, or waits for another): claim it apart. */
    public record NotFirst() implements Result {
    }

    @Inject
    StepLedger ledger;

    @Inject
    StepRecords records;

    @Inject
    Pipelines pipelines;

    @Inject
    Payloads payloads;

    @Inject
    Metrics metrics;

    /** Who watches each step's health (the automatic hold): told of every success and every retryable failure. */
    @Inject
    StepHealth health;

    /** Holds back a step's deliveries on this node while it ramps up after a hold. */
    @Inject
    StepGate gate;

    @Inject
    Clock clock;

    @Resource
    SessionContext session;

    @Inject
    AttemptWatch attemptWatch;

    /** See {@link StepProcessor#inProgressAfter}. */
    @Inject
    @ConfigProperty(name = "lazarus.consumer.in-progress-after", defaultValue = "PT1S")
    Duration inProgressAfter;

    /**
     * The first delivery of a dispatch as it was sent: claimed in this transaction if the run waits for exactly it
     * ({@link StepRecords#claimFirstDelivery}), its attempt written with its outcome.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public Result runFirstDelivery(StepMessage message, StepDefinition step, int deliveryCount, String incarnation, FirstAttempt first) {
        try (Connection connection = records.connection()) {
            Optional<Run> run = records.claimFirstDelivery(connection, message, step);
            if (run.isEmpty()) {
                return new NotFirst();
            }
            Instant startedAt = clock.instant();
            InlineAttempt attempt = InlineAttempt.start(message.idempotencyKey(), deliveryCount, startedAt,
                    ending -> ledger.recordAttempt(message, step, deliveryCount, startedAt, ending), attemptWatch, inProgressAfter);
            first.attempt = attempt;
            Result result = null;
            try {
                result = run(message, step, Claim.run(1, 0, run.get().requeueCount(), run.get().generation()), connection, run.get(),
                        attempt, incarnation);
                return result;
            } finally {
                if (!(result instanceof Failed)) {
                    attempt.finish(); // whatever happened (an Error, say), its watch never outlives the delivery
                } // a failed one's is written and finished by the consumer, after this transaction (Failed.writeAttempt)
            }
        } catch (SQLException e) {
            throw new PersistenceException("could not give back the step's database connection: " + e.getMessage(), e);
        }
    }

    /**
     * Where {@link #runFirstDelivery} leaves the attempt it started, for the consumer to end whatever becomes of the call:
     * if the container fails to end the step's transaction after the step failed (its rollback, the connection's
     * release), no {@link Failed} comes back to write it, and the attempt would be left to its watcher.
     */
    public static final class FirstAttempt {

        private volatile InlineAttempt attempt;

        /**
         * The call ended in an exception: a step that ran and failed has its attempt written now (it counts, as any
         * interrupted attempt), and the watch ends. Nothing is written for an attempt already finished (the step
         * succeeded, or was never run).
         */
        void abandon(Throwable why) {
            InlineAttempt started = attempt;
            if (started != null) {
                try {
                    started.writeNow(StepAttempts.Ending.interrupted(why));
                } finally {
                    started.finish();
                }
            }
        }
    }

    /** A delivery whose attempt {@link StepLedger#claim} counted in a transaction of its own. */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public Result runClaimed(StepMessage message, StepDefinition step, Claim claim, String incarnation) {
        return run(new StepMessage(message.runId(), message.step(), claim.generation()), step, claim, null, null, null, incarnation);
    }

    /**
     * @param connection the connection a first delivery's claim read with; null if it was claimed apart
     * @param claimed    the run as a first delivery's claim read it; null if it was claimed apart
     * @param inline     the attempt of a first delivery claimed inline, not written yet; null if it was claimed apart
     * @param incarnation the node incarnation that sends the next dispatch ({@link Dispatches.Recording})
     */
    private Result run(StepMessage message, StepDefinition step, Claim claim, Connection connection, Run claimed,
                       InlineAttempt inline, String incarnation) {
        StepContext context = new StepContext(message.runId(), step.pipeline(), step.name(), claim.attempt(),
                step.retryPolicy().maxDeliveryAttempts(), claim.failuresBefore(), claim.requeueCount(),
                message.idempotencyKey(), parse(claimed != null ? claimed.payload() : records.payload(message)));
        StepGate.Pass pass;
        try {
            pass = gate.enter(step);
        } catch (InterruptedException shuttingDown) {
            // waiting at the ramp-up's gate, not running the step: rolled back, the claim included, so the run is charged
            // no attempt and the hold counts no failure
            Thread.currentThread().interrupt();
            session.setRollbackOnly();
            return new Interrupted();
        }
        String output;
        long started = System.nanoTime();
        try (pass; Instance.Handle<? extends StepHandler> handler = pipelines.handlerFor(step)) {
            JsonObject result = handler.get().handle(context);
            if (result == null) {
                throw new IllegalStateException(step.handler().getSimpleName() + " returned no payload");
            }
            output = payloads.output(result, step.name());
        } catch (Exception e) {
            metrics.stepExecuted(step.pipeline(), step.name(), false, Duration.ofNanos(System.nanoTime() - started));
            session.setRollbackOnly(); // the handler's work is undone; the failure is recorded after, apart
            boolean permanent = StepProcessor.isNonRetryable(e);
            if (!permanent) {
                health.failedRetryably(step, e); // what the automatic hold counts: a failure retrying may cure
            }
            return new Failed(e, permanent, inline);
        }
        health.succeeded(step);
        metrics.stepExecuted(step.pipeline(), step.name(), true, Duration.ofNanos(System.nanoTime() - started));
        if (inline != null) {
            inline.finish();
        }
        try {
            return new Succeeded(claimed != null ? records.succeededFirst(connection, claimed, message, step, output, inline, incarnation)
                    : records.succeeded(message, step, claim.attempt(), output, incarnation));
        } catch (StepLedger.RunMovedOn fenced) {
            // the fencing at work (an operator's stop, a sweep, a requeue while the step ran): nothing failed to be written
            session.setRollbackOnly();
            return new MovedOn(fenced.getMessage());
        } catch (EJBException | PersistenceException e) {
            session.setRollbackOnly();
            metrics.diagnosticsWriteFailed("step_success");
            LOG.log(Level.WARNING, "Could not record the success of {0}, the broker will redeliver: {1}",
                    new Object[] {message.idempotencyKey(), Failures.rootMessage(e)});
            return new NotRecorded(Failures.rootMessage(e));
        }
    }

    private static JsonObject parse(String payload) {
        try (var reader = JSON.createReader(new StringReader(payload))) {
            return reader.readObject();
        }
    }
}
