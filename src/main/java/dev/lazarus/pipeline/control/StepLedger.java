package dev.lazarus.pipeline.control;

import dev.lazarus.deadletter.control.DeadLetterQueues;
import dev.lazarus.deadletter.control.DeadLetterService;
import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.StepExecution;
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
 * The bookkeeping around each delivery of a step, in the database.
 *
 * <p>An attempt is recorded when the delivery reaches the step, in a transaction of its own, so that the run
 * shows {@code IN_PROGRESS} with a heartbeat while the handler works (what the sweeper watches) and so that an
 * attempt whose consumer dies still counts. Lazarus counts attempts itself: a delivery the server rolled back
 * before this point (starting up, shutting down) never spent one. A step is given up when its failures reach
 * the retry policy's attempts, or when as many attempts never finished (a step that keeps killing its server
 * must not loop forever). Success is recorded in the consumer's transaction, together with the handler's own
 * work and the next step's message.
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
    DeadLetterService deadLetters;

    @Inject
    Clock clock;

    /**
     * Decides what a delivery may do, and if it may run the step, records the attempt (see the class comment).
     *
     * @param deliveryCount the broker's delivery count: kept for comparison, never taken as the attempt number
     * @param parked        the mark of a message Lazarus parked in a DLQ, if this one carries one
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public Admission admit(StepMessage message, StepDefinition step, int deliveryCount, DeadLetterQueues.ParkedMark parked) {
        Run run = em.find(Run.class, message.runId());
        if (run == null) {
            return Admission.rejected(Admission.Verdict.RUN_NOT_FOUND, "no run " + message.runId());
        }
        if (!run.pipeline().equals(step.pipeline())) {
            return Admission.rejected(Admission.Verdict.WRONG_PIPELINE,
                    "run " + run.id() + " belongs to pipeline " + run.pipeline() + ", this queue serves " + step.pipeline());
        }
        Optional<DeadLetter> markedBy = parked == null ? Optional.empty() : Optional.ofNullable(em.find(DeadLetter.class, parked.deadLetterId()))
                .filter(d -> d.parkedWith(parked.token()) && run.id().equals(d.runId()));
        if (markedBy.isPresent()) {
            // out of a DLQ: never executed as it is, whatever the run is doing now; a requeue decides
            return Admission.ofDeadLetter(Admission.Verdict.CONSOLE_RETRY, markedBy.get().id(), "retried from the Artemis console");
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
        StepExecution execution = existing.orElseGet(() -> {
            StepExecution created = new StepExecution(run, step.name(), step.queue());
            em.persist(created);
            return created;
        });
        execution.attemptStarted(deliveryCount, now);
        if (deliveryCount > execution.attempts()) {
            LOG.log(Level.INFO, "Run {0} step {1}: attempt {2} arrives as the broker''s delivery {3}; the other deliveries"
                    + " were rolled back before the step ran (server starting or stopping, database unreachable) and used no attempt",
                    new Object[] {run.id(), step.name(), execution.attempts(), deliveryCount});
        }
        run.attemptStarted(now);
        return Admission.admitted(execution.attempts(), execution.failures(), run.requeueCount(), run.generation());
    }

    /** A message for a dispatch the run is not waiting for: which of the verdicts it gets. */
    private Admission notAccepted(Run run, StepMessage message, StepDefinition step) {
        if (message.generation() <= run.generation()) {
            Optional<DeadLetter> ofDispatch = deadLetters.findForDispatch(run.id(), message.generation())
                    .filter(d -> step.name().equals(d.stepName()));
            if (ofDispatch.isPresent()) {
                return Admission.ofDeadLetter(Admission.Verdict.TO_DEAD_LETTER, ofDispatch.get().id(),
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
     * The step succeeded: record it and dispatch the next step (or complete the run), all in the consumer's
     * transaction. If the run was swept or requeued since the attempt was admitted, the outcome is refused here
     * (a fenced attempt never moves its run on); if that happens while this transaction runs, the version check
     * fails the commit. Either way the broker's redelivery is then dead-lettered as stale.
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void succeeded(StepMessage message, StepDefinition step, String output) {
        Instant now = clock.instant();
        Run run = em.find(Run.class, message.runId());
        if (run == null || !run.accepts(message.step(), message.generation())) {
            throw new IllegalStateException("run " + message.runId() + " moved on while " + message.idempotencyKey()
                    + " ran (swept or requeued): its outcome is not recorded");
        }
        execution(run, step).ifPresent(e -> e.completed(now));
        Optional<StepDefinition> next = pipelines.find(run.pipeline()).flatMap(p -> p.after(step.name()));
        if (next.isPresent()) {
            run.advanceTo(next.get().name(), output, now);
            dispatcher.dispatch(next.get(), new StepMessage(run.id(), next.get().name(), run.generation()));
        } else {
            run.complete(output, now);
            LOG.log(Level.INFO, "Run {0} of {1} completed", new Object[] {run.id(), run.pipeline()});
        }
        em.flush(); // surface a concurrent change here rather than at commit
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
