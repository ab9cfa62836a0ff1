package dev.lazarus.deadletter.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.deadletter.entity.DeadLetterStatus;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.StepExecution;
import dev.lazarus.pipeline.entity.StepState;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.jms.Message;
import jakarta.persistence.EntityManager;
import jakarta.persistence.FlushModeType;
import jakarta.persistence.PersistenceContext;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * The one way a dead letter comes to exist, whichever path detected it. Idempotent: a run that already has an
 * open dead letter keeps it (the first evidence stays), and the database's unique {@code open_run_id} makes
 * two detectors racing on different nodes end with exactly one.
 */
@Stateless
public class DeadLetterService {

    private static final Logger LOG = Logger.getLogger(DeadLetterService.class.getName());

    /** The actor of what happens through the Artemis console, which Lazarus only sees the effect of. */
    public static final String CONSOLE = "artemis-console";

    @PersistenceContext
    EntityManager em;

    @Inject
    DeadLetterQueues deadLetterQueues;

    @Inject
    RequeuePolicy requeuePolicy;

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
        Run run = report.runId() == null ? null : em.find(Run.class, report.runId());
        DeadLetterReason reason = report.reason();
        String error = report.errorMessage();
        if (run != null && report.concerns(run.generation()) && reason != DeadLetterReason.MANUAL
                && requeuePolicy.exhausted(run.requeueCount())) {
            // the loop guard: this run has been brought back as often as allowed; park it for good
            error = reason + " after " + run.requeueCount() + " requeues (limit " + requeuePolicy.maxPerRun() + "): " + error;
            reason = DeadLetterReason.REQUEUE_LIMIT;
        }
        DeadLetter deadLetter = new DeadLetter(reason, report.queue(), report.deadLetterQueue(), report.detectedBy(), now)
                .withMessage(report.messageId(), report.messageBody())
                .withError(report.exceptionClass(), error, report.stackTrace(), report.attempts());
        if (run != null && report.concerns(run.generation())) {
            deadLetter.forRun(run.id(), run.pipeline(), report.step() != null ? report.step() : run.currentStep(), run.generation())
                    .withRunSnapshot(snapshot(run));
            if (run.state().isLive()) {
                run.deadLetter(report.fence(), now);
                failCurrentStep(run, report);
            }
        } else if (run != null) {
            // A message of an earlier dispatch: the run has moved on (requeued, completed), so it is evidence
            // only, and does not take the run's one open dead-letter slot.
            deadLetter.forRun(run.id(), run.pipeline(), report.step(), report.generation())
                    .withRunSnapshot(snapshot(run))
                    .detachedFromRun();
        } else if (report.runId() != null) {
            deadLetter.forRun(report.runId(), report.pipeline(), report.step(), report.generation());
        }
        em.persist(deadLetter); // inserted at flush; the one-open-per-run constraint is checked then
        LOG.log(Level.WARNING, "Dead letter {0}: {1} on queue {2}, run {3}, step {4}: {5}", new Object[] {
                deadLetter.id(), reason, report.queue(), report.runId(), report.step(), error});
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
        deadLetterQueues.park(message, report.queue(), report.reason(), deadLetter.id());
        return deadLetter;
    }

    /**
     * The dead letters already explaining these DLQ messages, found with two queries for the lot: the
     * reconciler reads thousands of messages a sweep and nearly all of them are explained. A message missing
     * from the answer goes through {@link #explain} on its own.
     */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public Map<DlqMessage, Long> alreadyExplained(List<DlqMessage> messages) {
        Map<DlqMessage, Long> explained = new HashMap<>();
        Set<Long> parkedIds = messages.stream().map(DlqMessage::deadLetterId).filter(Objects::nonNull).collect(Collectors.toSet());
        Set<Long> existing = parkedIds.isEmpty() ? Set.of() : Set.copyOf(em.createQuery(
                "select d.id from DeadLetter d where d.id in :ids", Long.class).setParameter("ids", parkedIds).getResultList());
        Set<UUID> runIds = messages.stream().map(DlqMessage::runId).filter(Objects::nonNull).collect(Collectors.toSet());
        // the first dead letter of each dispatch, as findForDispatch picks it
        Map<String, Long> byDispatch = new HashMap<>();
        if (!runIds.isEmpty()) {
            for (Object[] row : em.createQuery("select d.runId, d.generation, d.id from DeadLetter d where d.runId in :runs order by d.id",
                    Object[].class).setParameter("runs", runIds).getResultList()) {
                byDispatch.putIfAbsent(row[0] + ":" + row[1], (Long) row[2]);
            }
        }
        for (DlqMessage message : messages) {
            Long id = message.deadLetterId() != null && existing.contains(message.deadLetterId()) ? message.deadLetterId()
                    : message.runId() != null ? byDispatch.get(message.runId() + ":" + message.generation()) : null;
            if (id != null) {
                explained.put(message, id);
            }
        }
        return explained;
    }

    /**
     * The dead letter that explains a message found in a DLQ, recording one if there is none: in a
     * transaction of its own, so each message is settled on its own.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public Explanation explain(StepDefinition step, DlqMessage message) {
        Optional<DeadLetter> known = Optional.ofNullable(message.deadLetterId()).map(id -> em.find(DeadLetter.class, id));
        if (known.isEmpty() && message.runId() != null && message.generation() != null) {
            known = findForDispatch(message.runId(), message.generation());
        }
        if (known.isEmpty() && message.messageId() != null) {
            known = em.createQuery("select d from DeadLetter d where d.messageId = :id", DeadLetter.class)
                    .setParameter("id", message.messageId()).setMaxResults(1).getResultStream().findFirst();
        }
        if (known.isPresent()) {
            return new Explanation(known.get().id(), false);
        }
        DeadLetterReport report = message.runId() == null
                ? new DeadLetterReport(DeadLetterReason.MALFORMED_MESSAGE, step.queue(), null, null, null, null,
                        message.messageId(), message.body(), 0, null,
                        "found in " + step.deadLetterQueue() + " with no diagnostics: " + message.problem(), null, false,
                        DeadLetterReport.RECONCILER)
                : new DeadLetterReport(DeadLetterReason.RETRIES_EXHAUSTED, step.queue(), message.runId(), step.pipeline(),
                        message.step() != null ? message.step() : step.name(), message.generation(), message.messageId(), null,
                        step.retryPolicy().maxDeliveryAttempts(), null,
                        "found in " + step.deadLetterQueue() + " with no diagnostics: the broker dead-lettered it after its"
                                + " retries but the consumer could not record why (the exception is not known)",
                        null, false, DeadLetterReport.RECONCILER);
        return new Explanation(record(report).id(), true);
    }

    /**
     * Updates whether the open dead letters of {@code deadLetterQueue} (older than {@code createdBefore}, of a
     * reason that parks its message) still have their message there.
     *
     * @return how many were newly flagged missing
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int checkDlqMessages(String deadLetterQueue, Set<Long> present, Instant createdBefore, Instant now) {
        List<DeadLetterReason> parking = Arrays.stream(DeadLetterReason.values()).filter(DeadLetterReason::parksMessage).toList();
        int flagged = 0;
        for (DeadLetter deadLetter : em.createQuery("select d from DeadLetter d where d.deadLetterQueue = :dlq"
                        + " and d.status in :open and d.reason in :parking and d.createdAt < :before", DeadLetter.class)
                .setParameter("dlq", deadLetterQueue)
                .setParameter("open", DeadLetterStatus.OPEN)
                .setParameter("parking", parking)
                .setParameter("before", createdBefore)
                .getResultList()) {
            boolean wasMissing = deadLetter.dlqMessageMissing();
            deadLetter.dlqMessagePresent(present.contains(deadLetter.id()), now);
            if (!wasMissing && deadLetter.dlqMessageMissing()) {
                flagged++;
                LOG.log(Level.WARNING, "Dead letter {0}: its message is no longer in {1}", new Object[] {deadLetter.id(), deadLetterQueue});
            }
        }
        return flagged;
    }

    public record Explanation(long deadLetterId, boolean recordedNow) {
    }

    /** The run's dead message was retried in the Artemis console and has resumed the run: say so on its dead letter. */
    public void replayedFromConsole(UUID runId, Instant now) {
        Optional<DeadLetter> open = findOpen(runId);
        if (open.isPresent()) {
            open.get().requeued(CONSOLE, RequeueService.REPLAYED_FROM_CONSOLE, now);
        } else {
            latestOf(runId).ifPresent(closed -> closed.addNote(CONSOLE,
                    "its message was retried from the Artemis console after the dead letter was closed; the run resumed", now));
        }
    }

    private Optional<DeadLetter> latestOf(UUID runId) {
        return em.createQuery("select d from DeadLetter d where d.runId = :run order by d.id desc", DeadLetter.class)
                .setParameter("run", runId).setMaxResults(1).getResultStream().findFirst();
    }

    /** The dead letter recorded for this dispatch of the run, open or not. */
    public Optional<DeadLetter> findForDispatch(UUID runId, long generation) {
        return em.createQuery("select d from DeadLetter d where d.runId = :run and d.generation = :generation order by d.id", DeadLetter.class)
                .setParameter("run", runId)
                .setParameter("generation", generation)
                .setMaxResults(1)
                .getResultStream()
                .findFirst();
    }

    public Optional<DeadLetter> findOpen(UUID runId) {
        // COMMIT: no flush of pending updates first (a dead letter's insert is immediate, so it is seen anyway);
        // this keeps a sweep's run updates batched
        return em.createQuery("select d from DeadLetter d where d.openRunId = :run", DeadLetter.class)
                .setFlushMode(FlushModeType.COMMIT)
                .setParameter("run", runId)
                .getResultStream()
                .findFirst();
    }

    private void failCurrentStep(Run run, DeadLetterReport report) {
        em.createQuery("select s from StepExecution s where s.run = :run and s.stepName = :step and s.generation = :generation",
                        StepExecution.class)
                .setFlushMode(FlushModeType.COMMIT)
                .setParameter("run", run)
                .setParameter("step", run.currentStep())
                .setParameter("generation", report.fence() ? run.generation() - 1 : run.generation())
                .getResultStream()
                .filter(step -> step.state() != StepState.COMPLETED)
                .forEach(step -> step.failed(report.reason() + ": " + report.errorMessage()));
    }

    /** The run as it was when it stopped, kept with the dead letter even if the run changes or disappears. */
    static String snapshot(Run run) {
        return JSON.createObjectBuilder()
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
