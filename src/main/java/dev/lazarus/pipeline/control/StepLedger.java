package dev.lazarus.pipeline.control;

import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.RunState;
import dev.lazarus.pipeline.entity.StepExecution;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.jms.Message;
import jakarta.persistence.EntityManager;
import jakarta.persistence.OptimisticLockException;
import jakarta.persistence.PersistenceContext;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The bookkeeping around each delivery of a step, in the database.
 *
 * <p>Attempts are counted when a delivery reaches the step. The first delivery of a dispatch (the common case:
 * nearly every step succeeds at once) is admitted inside the consumer's transaction and its attempt is written
 * there, together with its success, the handler's own work and the next step's message: one transaction per
 * step. Its attempt is written in a transaction of its own instead as soon as that matters (see
 * {@link InlineAttempt}): when the step runs long (so the run shows {@code IN_PROGRESS} with a heartbeat, which
 * the sweeper watches, and an attempt whose consumer then dies still counts) and before a failure is recorded.
 * The price: a server that dies within that moment ({@code lazarus.consumer.in-progress-after}, 1 s) of starting a
 * first delivery leaves no attempt, only the broker's delivery count, which the step execution keeps beside its
 * attempts (the redelivery logs the difference). A step that keeps killing its server is still given up, one
 * delivery later. {@code lazarus.consumer.in-progress-after=PT0S} writes every attempt first, as before.
 *
 * <p>Every other delivery (redeliveries, copies sent back to wait, messages out of a DLQ, a dispatch the database
 * does not show yet) is admitted in a transaction of its own before the handler runs. Lazarus counts attempts
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
    StepDispatcher dispatcher;

    @Inject
    Pipelines pipelines;

    @Inject
    DeliveryOutcomes outcomes;

    @Inject
    Clock clock;

    /**
     * Decides what a delivery may do, and if it may run the step, records the attempt (see the class comment).
     *
     * @param deliveryCount the broker's delivery count: kept for comparison, never taken as the attempt number
     * @param delivered     the message as delivered (one Lazarus parked in a DLQ carries its mark)
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public Admission admit(StepMessage message, StepDefinition step, int deliveryCount, Message delivered) {
        Run run = em.find(Run.class, message.runId());
        if (run == null) {
            return Admission.rejected(Admission.Verdict.RUN_NOT_FOUND, "no run " + message.runId());
        }
        if (!run.pipeline().equals(step.pipeline())) {
            return Admission.rejected(Admission.Verdict.WRONG_PIPELINE,
                    "run " + run.id() + " belongs to pipeline " + run.pipeline() + ", this queue serves " + step.pipeline());
        }
        Optional<Long> parkedWith = outcomes.parkedWith(delivered, run.id());
        if (parkedWith.isPresent()) {
            // out of a DLQ: never executed as it is, whatever the run is doing now; a requeue decides
            return Admission.ofDeadLetter(Admission.Verdict.CONSOLE_RETRY, parkedWith.get(), "retried from the Artemis console");
        }
        if (!run.accepts(message.step(), message.generation())) {
            return notAccepted(run, message, step);
        }
        Instant now = clock.instant();
        Optional<StepExecution> existing = execution(run, step);
        RetryPolicy policy = step.retryPolicy();
        if (existing.isPresent()) {
            StepExecution earlier = existing.get();
            if (policy.exhaustedBy(earlier.failures()) || policy.interruptedTooOften(earlier.interrupted())) {
                return Admission.giveUp(earlier.attempts(), "the step started " + earlier.attempts() + " time(s): "
                        + earlier.failures() + " failed, " + earlier.interrupted() + " never finished (the server stopped or the"
                        + " transaction timed out mid-step); the retry policy allows " + policy.maxDeliveryAttempts() + " of each"
                        + (earlier.lastError() != null ? "; last error: " + earlier.lastError() : ""));
            }
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
        return Admission.admitted(execution.attempts(), execution.failures(), run.requeueCount(), run.generation());
    }

    /**
     * The first delivery of a fresh dispatch, in the consumer's transaction: admitted if the run is waiting for
     * exactly this dispatch and no attempt of it was recorded yet. Nothing is written here; the attempt is written
     * with the step's success, or earlier in a transaction of its own ({@link #recordAttempt}). Anything else is
     * for {@link #admit} to decide, and what was read here is forgotten so that it reads afresh.
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public Optional<Admission> admitFirstDelivery(StepMessage message, StepDefinition step) {
        Run run = em.find(Run.class, message.runId());
        // PENDING: no attempt of the run's current dispatch was recorded yet (see RunState), so no query for one
        if (run != null && run.state() == RunState.PENDING && run.pipeline().equals(step.pipeline())
                && run.accepts(message.step(), message.generation())) {
            return Optional.of(Admission.admitted(1, 0, run.requeueCount(), run.generation()));
        }
        em.clear(); // the consumer's persistence context must not keep a run older than the one admit() reads
        return Optional.empty();
    }

    /**
     * Writes the attempt of a first delivery that runs inline, in a transaction of its own: the step is taking
     * long, or has failed. Afterwards the run shows {@code IN_PROGRESS} with a heartbeat, and the attempt counts
     * even if its consumer dies.
     *
     * @return whether it was written (not if the run moved on meanwhile, swept say, or another delivery recorded one)
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public boolean recordAttempt(StepMessage message, StepDefinition step, int deliveryCount, Instant startedAt) {
        Run run = em.find(Run.class, message.runId());
        // PENDING: no other delivery of this dispatch has recorded an attempt since (a redelivery after a network
        // partition, say); if one has, this attempt is not the dispatch's current one and writes nothing
        if (run == null || run.state() != RunState.PENDING || !run.accepts(message.step(), message.generation())) {
            return false;
        }
        StepExecution execution = execution(run, step).orElseGet(() -> newExecution(run, step));
        execution.attemptStarted(deliveryCount, startedAt);
        run.attemptStarted(clock.instant());
        return true;
    }

    /** A message for a dispatch the run is not waiting for: which of the verdicts it gets. */
    private Admission notAccepted(Run run, StepMessage message, StepDefinition step) {
        if (message.generation() <= run.generation()) {
            Optional<Long> ofDispatch = outcomes.deadLetterOfDispatch(run.id(), message.generation(), step.name());
            if (ofDispatch.isPresent()) {
                return Admission.ofDeadLetter(Admission.Verdict.TO_DEAD_LETTER, ofDispatch.get(),
                        "run " + run.id() + " is " + run.state() + " at dispatch " + run.generation());
            }
        } else {
            return Admission.rejected(Admission.Verdict.AHEAD, "run " + run.id() + " is at dispatch " + run.generation()
                    + ", the message names dispatch " + message.generation() + ", which it never made");
        }
        return Admission.rejected(Admission.Verdict.STALE, "run " + run.id() + " is " + run.state() + " at step "
                + run.currentStep() + ", dispatch " + run.generation() + "; this message is for step " + message.step()
                + ", dispatch " + message.generation());
    }

    /** A failed attempt that the broker will redeliver: say so on the run, in a transaction of its own. */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public void attemptFailed(StepMessage message, StepDefinition step, Throwable failure) {
        Run run = em.find(Run.class, message.runId());
        if (run == null || !run.accepts(message.step(), message.generation())) {
            return; // swept or requeued meanwhile: nothing of this attempt matters any more
        }
        run.attemptFailed(clock.instant());
        execution(run, step).ifPresent(e -> e.attemptFailed(failure.getClass().getName() + ": " + failure.getMessage()));
    }

    /** The payload the step receives; read in the consumer's transaction, after the attempt was admitted. */
    public String payload(StepMessage message) {
        return em.find(Run.class, message.runId()).payload();
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

        RunMovedOn(StepMessage message, String what) {
            super("run " + message.runId() + " " + what + " while " + message.idempotencyKey() + " ran (stopped, swept or requeued):"
                    + " its outcome is discarded");
        }
    }

    /**
     * The step succeeded: record it and dispatch the next step (or complete the run), all in the consumer's
     * transaction. If the run was stopped, swept or requeued since the attempt was admitted, the outcome is refused
     * here (a fenced attempt never moves its run on); if that happens while this transaction runs, the run's version
     * check fails the update. Either way it is a {@link RunMovedOn}, and the broker's redelivery is then settled with
     * the dead letter of the dispatch.
     *
     * @param inline the attempt, if it was admitted inline ({@link #admitFirstDelivery}); null if {@link #admit} wrote it
     * @throws RunMovedOn if the run is no longer at this dispatch
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void succeeded(StepMessage message, StepDefinition step, String output, InlineAttempt inline) {
        Instant now = clock.instant();
        Run run = em.find(Run.class, message.runId());
        boolean written = inline == null || inline.recorded();
        if (inline != null && written && run != null) {
            em.refresh(run); // its attempt was written in a transaction of its own while the step ran
        }
        if (run == null || !run.accepts(message.step(), message.generation())) {
            throw new RunMovedOn(message, run == null ? "disappeared" : "moved on to " + run.state() + " at step " + run.currentStep()
                    + ", dispatch " + run.generation());
        }
        if (written) {
            execution(run, step).ifPresent(e -> e.completed(now));
        } else {
            // persisted complete, so that it is one insert (changed after persist, it would be an insert and an update)
            StepExecution execution = new StepExecution(run, step.name(), step.queue());
            execution.attemptStarted(inline.deliveryCount(), inline.startedAt());
            execution.completed(now);
            em.persist(execution);
        }
        Optional<StepDefinition> next = pipelines.find(run.pipeline()).flatMap(p -> p.after(step.name()));
        if (next.isPresent()) {
            run.advanceTo(next.get().name(), output, now);
            dispatcher.dispatch(next.get(), new StepMessage(run.id(), next.get().name(), run.generation()), run.traceId());
        } else {
            run.complete(output, now);
            LOG.log(Level.INFO, "Run {0} of {1} completed", new Object[] {run.id(), run.pipeline()});
        }
        try {
            em.flush(); // surface a concurrent change here rather than at commit
        } catch (OptimisticLockException changed) {
            // the run's row changed after this transaction read it (the only versioned row written here): stopped,
            // swept or requeued while the step ran, and the database noticed
            throw new RunMovedOn(message, "changed");
        }
    }

    /** A new execution of the run's current dispatch of the step, persisted now (changes made after it are written at flush). */
    private StepExecution newExecution(Run run, StepDefinition step) {
        StepExecution created = new StepExecution(run, step.name(), step.queue());
        em.persist(created);
        return created;
    }

    private Optional<StepExecution> execution(Run run, StepDefinition step) {
        return em.createQuery("select s from StepExecution s where s.run = :run and s.stepName = :step and s.generation = :generation",
                        StepExecution.class)
                .setParameter("run", run)
                .setParameter("step", step.name())
                .setParameter("generation", run.generation())
                .getResultStream()
                .findFirst();
    }
}
