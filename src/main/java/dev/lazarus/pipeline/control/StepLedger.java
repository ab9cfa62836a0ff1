package dev.lazarus.pipeline.control;

import dev.lazarus.deadletter.control.DeadLetterService;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.RunState;
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
 * <p>An attempt is recorded when the delivery starts, in a transaction of its own, so that the run shows
 * {@code IN_PROGRESS} with a heartbeat while the handler works (what the sweeper watches) and so that an
 * attempt whose consumer dies still counts. Success is recorded in the consumer's transaction, together
 * with the handler's own work and the next step's message.
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
     * @param fromDeadLetterQueue the message came back out of a dead-letter queue (it carries the broker's
     *                            {@code _AMQ_ORIG_QUEUE}, or is a fresh copy of a dispatch that was dead-lettered)
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public Admission admit(StepMessage message, StepDefinition step, int deliveryCount, boolean fromDeadLetterQueue) {
        Run run = em.find(Run.class, message.runId());
        if (run == null) {
            return Admission.rejected(Admission.Verdict.RUN_NOT_FOUND, "no run " + message.runId());
        }
        if (!run.pipeline().equals(step.pipeline())) {
            return Admission.rejected(Admission.Verdict.WRONG_PIPELINE,
                    "run " + run.id() + " belongs to pipeline " + run.pipeline() + ", this queue serves " + step.pipeline());
        }
        if (!run.accepts(message.step(), message.generation())) {
            boolean deadLetteredAtThisDispatch = run.state() == RunState.DEAD_LETTERED
                    && run.generation() == message.generation() && step.name().equals(run.currentStep());
            if (!deadLetteredAtThisDispatch) {
                return Admission.stale(run.state(), run.generation(), run.currentStep());
            }
            if (!fromDeadLetterQueue) {
                return Admission.rejected(Admission.Verdict.PARK, "run was dead-lettered at this dispatch");
            }
            // An operator retried the dead message in the Artemis console: that is a requeue too.
            run.replayed(clock.instant());
            deadLetters.replayedFromConsole(run.id(), clock.instant());
            LOG.log(Level.INFO, "Run {0} resumes at step {1}: its message was retried from {2} in the Artemis console",
                    new Object[] {run.id(), step.name(), step.deadLetterQueue()});
        }
        Instant now = clock.instant();
        StepExecution execution = execution(run, step).orElseGet(() -> {
            StepExecution created = new StepExecution(run, step.name(), step.queue());
            em.persist(created);
            return created;
        });
        if (!execution.attemptStarted(deliveryCount, now)) {
            LOG.log(Level.WARNING, "Run {0} step {1}: broker delivery count {2} is behind the recorded attempts; counting attempt {3}",
                    new Object[] {run.id(), step.name(), deliveryCount, execution.attempts()});
        }
        run.attemptStarted(now);
        return Admission.admitted(execution.attempts(), run.requeueCount(), run.generation(), null);
    }

    /** A failed attempt that the broker will redeliver: say so on the run, in a transaction of its own. */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public void attemptFailed(StepMessage message, StepDefinition step, Throwable failure) {
        Run run = em.find(Run.class, message.runId());
        if (run == null || !run.accepts(message.step(), message.generation())) {
            return; // swept or requeued meanwhile: nothing of this attempt matters any more
        }
        run.attemptFailed(clock.instant());
        execution(run, step).ifPresent(e -> e.attemptFailed(failure.getClass().getSimpleName() + ": " + failure.getMessage()));
    }

    /** The payload the step receives; read in the consumer's transaction, after the attempt was admitted. */
    public String payload(StepMessage message) {
        return em.find(Run.class, message.runId()).payload();
    }

    /**
     * The step succeeded: record it and dispatch the next step (or complete the run), all in the consumer's
     * transaction. If the run was swept or requeued meanwhile, the version check fails the commit and the
     * broker's redelivery is then fenced as stale.
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void succeeded(StepMessage message, StepDefinition step, String output) {
        Instant now = clock.instant();
        Run run = em.find(Run.class, message.runId());
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
