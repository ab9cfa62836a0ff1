package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.StepExecution;
import dev.lazarus.pipeline.entity.StepState;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.jms.Message;
import jakarta.json.Json;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The one way a dead letter comes to exist, whichever path detected it. Idempotent: a run that already has an
 * open dead letter keeps it (the first evidence stays), and the database's unique {@code open_run_id} makes
 * two detectors racing on different nodes end with exactly one.
 */
@Stateless
public class DeadLetterService {

    private static final Logger LOG = Logger.getLogger(DeadLetterService.class.getName());

    @PersistenceContext
    EntityManager em;

    @Inject
    DeadLetterQueues deadLetterQueues;

    @Inject
    Clock clock;

    /** Records the dead letter in the caller's transaction and stops the run (if there is one). */
    public DeadLetter record(DeadLetterReport report) {
        if (report.runId() != null) {
            Optional<DeadLetter> open = findOpen(report.runId());
            if (open.isPresent()) {
                LOG.log(Level.FINE, "Run {0} already has open dead letter {1}", new Object[] {report.runId(), open.get().id()});
                return open.get();
            }
        }
        Instant now = clock.instant();
        DeadLetter deadLetter = new DeadLetter(report.reason(), report.queue(), report.deadLetterQueue(), report.detectedBy(), now)
                .withMessage(report.messageId(), report.messageBody())
                .withError(report.exceptionClass(), report.errorMessage(), report.stackTrace(), report.attempts());
        Run run = report.runId() == null ? null : em.find(Run.class, report.runId());
        if (run != null) {
            deadLetter.forRun(run.id(), run.pipeline(), report.step() != null ? report.step() : run.currentStep(), run.generation())
                    .withRunSnapshot(snapshot(run));
            run.deadLetter(report.fence(), now);
            failCurrentStep(run, report);
        } else if (report.runId() != null) {
            deadLetter.forRun(report.runId(), report.pipeline(), report.step(), report.generation());
        }
        em.persist(deadLetter);
        em.flush();
        LOG.log(Level.WARNING, "Dead letter {0}: {1} on queue {2}, run {3}, step {4}: {5}", new Object[] {
                deadLetter.id(), report.reason(), report.queue(), report.runId(), report.step(), report.errorMessage()});
        return deadLetter;
    }

    /**
     * Records in a transaction of its own: used by a consumer whose own transaction is about to roll back so
     * that the broker redelivers or moves the message.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public DeadLetter recordAlone(DeadLetterReport report) {
        return record(report);
    }

    /**
     * A message that can never execute: record why and park the message in its queue's DLQ, all in the
     * consumer's transaction, which then acknowledges the original. Nothing is lost and no retry is burnt.
     */
    public DeadLetter reject(DeadLetterReport report, Message message) {
        DeadLetter deadLetter = record(report);
        deadLetterQueues.park(message, report.queue(), report.reason());
        return deadLetter;
    }

    public Optional<DeadLetter> findOpen(UUID runId) {
        return em.createQuery("select d from DeadLetter d where d.openRunId = :run", DeadLetter.class)
                .setParameter("run", runId)
                .getResultStream()
                .findFirst();
    }

    private void failCurrentStep(Run run, DeadLetterReport report) {
        em.createQuery("select s from StepExecution s where s.run = :run and s.stepName = :step and s.generation = :generation",
                        StepExecution.class)
                .setParameter("run", run)
                .setParameter("step", run.currentStep())
                .setParameter("generation", report.fence() ? run.generation() - 1 : run.generation())
                .getResultStream()
                .filter(step -> step.state() != StepState.COMPLETED)
                .forEach(step -> step.failed(report.reason() + ": " + report.errorMessage()));
    }

    /** The run as it was when it stopped, kept with the dead letter even if the run changes or disappears. */
    static String snapshot(Run run) {
        return Json.createObjectBuilder()
                .add("id", run.id().toString())
                .add("pipeline", run.pipeline())
                .add("state", run.state().name())
                .add("currentStep", String.valueOf(run.currentStep()))
                .add("generation", run.generation())
                .add("requeueCount", run.requeueCount())
                .add("createdAt", run.createdAt().toString())
                .add("updatedAt", run.updatedAt().toString())
                .add("payload", run.payload())
                .build()
                .toString();
    }
}
