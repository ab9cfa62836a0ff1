package dev.lazarus.pipeline.control;

import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.RunState;
import dev.lazarus.pipeline.entity.StepExecution;
import dev.lazarus.pipeline.entity.StepState;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The bookkeeping around each delivery of a step, in the database: the claim before the handler runs, the record after.
 *
 * <p>Attempts are counted when a delivery reaches the step. The first delivery of a dispatch (the common case:
 * nearly every step succeeds at once) is claimed inside the step's transaction and its attempt is written
 * there, together with its success, the handler's own work and the next dispatch: one database transaction per
 * step, which commits before the next step's message is sent and before the delivery is acknowledged (see
 * {@link StepProcessor}). Its attempt is written in a transaction of its own instead as soon as that matters (see
 * {@link InlineAttempt}): when the step runs long (so the run shows {@code IN_PROGRESS} with a heartbeat, which
 * the sweeper watches, and an attempt whose consumer then dies still counts) and before a failure is recorded.
 * The price: a server that dies within that moment ({@code lazarus.consumer.in-progress-after}, 1 s) of starting a
 * first delivery leaves no attempt, only the broker's delivery count, which the step execution keeps beside its
 * attempts (the redelivery logs the difference). A step that keeps killing its server is still given up, one
 * delivery later. {@code lazarus.consumer.in-progress-after=PT0S} writes every attempt first, as before.
 *
 * <p>Every other delivery (redeliveries, copies sent back to wait, messages out of a DLQ, a dispatch the database
 * does not show yet) is claimed in a transaction of its own before the handler runs. Lazarus counts attempts
 * itself: a redelivery the server rolled back before this point (starting up, shutting down) never spent one.
 * A step is given up when its failures reach the retry policy's attempts, or when as many attempts never
 * finished (a step that keeps killing its server must not loop forever).
 */
@Stateless
public class StepLedger {

    private static final Logger LOG = Logger.getLogger(StepLedger.class.getName());

    @PersistenceContext
    EntityManager em;

    @Inject
    Pipelines pipelines;

    @Inject
    StepExecutions executions;

    @Inject
    Dispatches dispatches;

    @Inject
    StepAttempts attempts;

    @Inject
    Clock clock;

    /**
     * The claim of a delivery that is not run inline (see the class comment): what it may do, and if it may run the
     * step, its attempt, counted now, in a transaction of its own. A delivery whose dispatch's record has committed is
     * a {@link Claim.Verdict#REPLAY} (see {@link #replay}).
     *
     * @param deliveryCount the broker's delivery count: kept for comparison, never taken as the attempt number
     * @param ownDispatch   whether Lazarus sent this message for this dispatch ({@link StepDispatcher#isOwnDispatch}): only
     *                      then can it be a replay; a copy made by hand of a completed dispatch is not awaited
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public Claim claim(StepMessage message, StepDefinition step, int deliveryCount, boolean ownDispatch, String incarnation) {
        Run run = em.find(Run.class, message.runId());
        if (run == null) {
            return Claim.refused(Claim.Verdict.RUN_NOT_FOUND, "no run " + message.runId());
        }
        if (!run.pipeline().equals(step.pipeline())) {
            return Claim.refused(Claim.Verdict.WRONG_PIPELINE,
                    "run " + run.id() + " belongs to pipeline " + run.pipeline() + ", this queue serves " + step.pipeline());
        }
        if (!run.accepts(message.step(), message.generation())) {
            return notAccepted(run, message, ownDispatch, incarnation);
        }
        Instant now = clock.instant();
        Optional<StepExecution> existing = executions.of(run.id(), step.name(), run.generation());
        RetryPolicy policy = step.retryPolicy();
        if (existing.isPresent() && policy.givesUp(existing.get())) {
            StepExecution earlier = existing.get();
            return Claim.giveUp(earlier.attempts(), "the step started " + earlier.attempts() + " time(s): "
                    + earlier.failures() + " failed, " + earlier.interrupted() + " never finished (the server stopped or the"
                    + " transaction timed out mid-step); the retry policy allows " + policy.maxDeliveryAttempts() + " of each"
                    + (earlier.lastError() != null ? "; last error: " + earlier.lastError() : ""));
        }
        StepExecution execution = existing.orElseGet(() -> newExecution(run, step));
        execution.attemptStarted(deliveryCount, now);
        if (deliveryCount > execution.attempts()) {
            LOG.log(Level.INFO, "Run {0} step {1}: attempt {2} arrives as the broker''s delivery {3}; the other deliveries"
                    + " left no attempt: rolled back before the step ran (server starting or stopping, database unreachable,"
                    + " messages the consumer had prefetched when its server died), or a first delivery whose server died within"
                    + " lazarus.consumer.in-progress-after of starting the step",
                    new Object[] {run.id(), step.name(), execution.attempts(), deliveryCount});
        }
        run.attemptStarted(now);
        attempts.started(run.id(), run.generation(), step.name(), execution.attempts(), now, null, now);
        return Claim.run(execution.attempts(), execution.failures(), run.requeueCount(), run.generation());
    }

    /**
     * Writes the attempt of a first delivery that runs inline, in a transaction of its own: the step is taking
     * long, or has failed. Afterwards the run shows {@code IN_PROGRESS} with a heartbeat, and the attempt counts
     * even if its consumer dies.
     *
     * @param ending how the attempt ended, if it is written because it failed (its row is then written ended); null while
     *               the step still runs
     * @return whether it was written (not if the run moved on meanwhile, swept say, or another delivery recorded one)
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public boolean recordAttempt(StepMessage message, StepDefinition step, int deliveryCount, Instant startedAt,
                                 StepAttempts.Ending ending) {
        Run run = em.find(Run.class, message.runId());
        // PENDING: no other delivery of this dispatch has recorded an attempt since (a redelivery after a network
        // partition, say); if one has, this attempt is not the dispatch's current one and writes nothing
        if (run == null || run.state() != RunState.PENDING || !run.accepts(message.step(), message.generation())) {
            return false;
        }
        StepExecution execution = executions.of(run.id(), step.name(), run.generation()).orElseGet(() -> newExecution(run, step));
        execution.attemptStarted(deliveryCount, startedAt);
        Instant now = clock.instant();
        run.attemptStarted(now);
        attempts.started(run.id(), run.generation(), step.name(), execution.attempts(), startedAt, ending, now);
        return true;
    }

    /**
     * A message for a dispatch the run is not waiting for. If Lazarus sent it and the step's record of that dispatch has
     * committed, it is a replay: the consumer that recorded it died (or its send failed) before the message was
     * acknowledged, or the dispatch was sent twice and the broker no longer recognised the copy.
     */
    private Claim notAccepted(Run run, StepMessage message, boolean ownDispatch, String incarnation) {
        if (message.generation() > run.generation()) {
            return Claim.refused(Claim.Verdict.AHEAD, "run " + run.id() + " is at dispatch " + run.generation()
                    + ", the message names dispatch " + message.generation() + ", which it never made");
        }
        Optional<Claim> replay = ownDispatch ? replay(run, message, incarnation) : Optional.empty();
        if (replay.isPresent()) {
            return replay.get();
        }
        return Claim.refused(Claim.Verdict.NOT_AWAITED, "run " + run.id() + " is " + run.state() + " at step "
                + run.currentStep() + ", dispatch " + run.generation() + "; this message is for step " + message.step()
                + ", dispatch " + message.generation());
    }

    /**
     * The replay of a dispatch whose step completed: its handler never runs again. Its success made the next dispatch
     * (the run's generation after it); if the run still waits for that one, it is sent again, since the crash may have
     * come before it was sent (the broker drops it if it has it), and the run names {@code incarnation} as its sender: if
     * this send fails too, the dispatch recovery sends it.
     */
    private Optional<Claim> replay(Run run, StepMessage message, String incarnation) {
        Optional<StepExecution> recorded = executions.of(run.id(), message.step(), message.generation())
                .filter(execution -> execution.state() == StepState.COMPLETED);
        if (recorded.isEmpty()) {
            return Optional.empty();
        }
        boolean waitsForNext = run.state() == RunState.PENDING && run.generation() == message.generation() + 1;
        if (waitsForNext) {
            run.dispatchedAgain(incarnation, clock.instant());
        }
        StepDispatcher.Dispatch resend = waitsForNext
                ? pipelines.step(run.pipeline(), run.currentStep())
                        .map(next -> new StepDispatcher.Dispatch(next, new StepMessage(run.id(), next.name(), run.generation()),
                                run.traceId(), io.opentelemetry.context.Context.current()))
                        .orElse(null)
                : null;
        return Optional.of(Claim.replay(resend, "the step's record of dispatch " + message.generation() + " of run " + run.id()
                + " committed before this delivery was acknowledged; run " + run.state() + " at dispatch " + run.generation()
                + (resend != null ? ", whose message is sent again" : "")));
    }

    /** A failed attempt that the broker will redeliver: say so on the run, in a transaction of its own. */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public void attemptFailed(StepMessage message, StepDefinition step, int attempt, Throwable failure) {
        Run run = em.find(Run.class, message.runId());
        if (run == null || !run.accepts(message.step(), message.generation())) {
            return; // swept or requeued meanwhile: nothing of this attempt matters any more
        }
        Instant now = clock.instant();
        run.attemptFailed(now);
        executions.of(run.id(), step.name(), run.generation()).ifPresent(e -> e.attemptFailed(failure.getClass().getName() + ": " + failure.getMessage()));
        attempts.ended(run.id(), run.generation(), attempt, StepAttempts.Ending.failed(failure, false), now);
    }

    /**
     * The step's outcome cannot be recorded because its run moved past the dispatch while the step ran (an operator
     * stopped it, the sweeper gave up on it, a requeue sent it again): the outcome is discarded, the consumer's transaction
     * rolls back with whatever the handler did in it, and the broker's redelivery is settled as a copy of a dispatch its
     * dead letter explains. The fencing working as meant, not a failure: an application exception, so the container
     * neither logs it as an error nor wraps it.
     */
    @jakarta.ejb.ApplicationException(rollback = true)
    public static class RunMovedOn extends RuntimeException {

        private static final long serialVersionUID = 1L;

        public RunMovedOn(StepMessage message, String what) {
            super("run " + message.runId() + " " + what + " while " + message.idempotencyKey() + " ran (stopped, swept or requeued):"
                    + " its outcome is discarded");
        }
    }

    /** A new execution of the run's current dispatch of the step, persisted now (changes made after it are written at flush). */
    private StepExecution newExecution(Run run, StepDefinition step) {
        StepExecution created = new StepExecution(run, step.name(), step.queue());
        em.persist(created);
        return created;
    }
}
