package dev.lazarus.deadletter.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.pipeline.control.DeliveryOutcomes;
import dev.lazarus.pipeline.control.Pipelines;
import dev.lazarus.pipeline.control.StepExecutions;
import dev.lazarus.pipeline.control.RetryPolicy;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.RunState;
import dev.lazarus.pipeline.entity.StepExecution;
import dev.lazarus.pipeline.entity.StepState;
import dev.lazarus.platform.control.Failures;
import dev.lazarus.platform.control.Problem;
import dev.lazarus.platform.entity.Text;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.jms.Message;
import jakarta.json.JsonObjectBuilder;
import jakarta.persistence.EntityManager;
import jakarta.persistence.FlushModeType;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.PersistenceException;
import java.io.StringReader;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * The one place where a run and its open dead letter change, and the one way a dead letter comes to exist,
 * whichever path detected it.
 *
 * <p>The rule it keeps: <em>a run is {@code DEAD_LETTERED} exactly while its latest run-stopping dead letter holds
 * it</em>, recorded for the dispatch it stopped at: open (it can be requeued), or closed by a resolve or a discard,
 * which leave the run where it stopped for good; a requeue, closing it as {@code REQUEUED}, is the only way back.
 * That dead letter is the run's dead letter ({@link DeadLetters#latestFor}), and retention keeps it. So
 * <ul>
 * <li>recording is idempotent: a run that is already held keeps its dead letter (the first evidence stays),
 * and the database's unique {@code open_run_id} makes two detectors racing on different nodes end with one;</li>
 * <li>evidence about a dispatch the run has moved past (a fenced consumer failing late) is added to that
 * dispatch's dead letter as a note and changes nothing else;</li>
 * <li>a message that can never execute gets a dead letter of its own that names the run but never holds,
 * stops or resumes it;</li>
 * <li>only {@link #resume} brings a held run back, with its open dead letter, after checking that the two still
 * agree, for every requeue path (one, bulk, console Retry); a disagreement is a 409 problem, never a half-done
 * change;</li>
 * <li>an operator's {@link #stop} of a live run is a dead letter like a detector's (reason {@code MANUAL}), recorded by
 * the same rule under the same run lock: whichever of a stop, a sweep, a consumer's outcome or a requeue locks the run
 * first wins, and the other finds what it did.</li>
 * </ul>
 */
@Stateless
public class DeadLetterService {

    private static final Logger LOG = Logger.getLogger(DeadLetterService.class.getName());

    /** The actor of what happens through the Artemis console, which Lazarus only sees the effect of. */
    public static final String CONSOLE = "artemis-console";

    private static final List<DeadLetterReason> ABOUT_MESSAGE = DeadLetterReason.ABOUT_A_MESSAGE;

    /** Room for the rest of a run snapshot next to its payload. */
    private static final int SNAPSHOT_OVERHEAD = 2_000;

    @PersistenceContext
    EntityManager em;

    @Inject
    DeadLetterQueues deadLetterQueues;

    @Inject
    RequeuePolicy requeuePolicy;

    @Inject
    DeadLetterRows rows;

    @Inject
    Clock clock;

    @jakarta.annotation.Resource
    jakarta.ejb.SessionContext session;

    /**
     * How long a run must have been still before a message of its live dispatch found in a DLQ may stop it as
     * undeliverable (its own message could otherwise be waiting out a redelivery delay, unseen by the brokers' counts).
     */
    @Inject
    @org.eclipse.microprofile.config.inject.ConfigProperty(name = "lazarus.reconcile.undeliverable-after", defaultValue = "PT2M")
    Duration undeliverableAfter;
    @Inject
    Pipelines pipelines;

    @Inject
    StepExecutions stepExecutions;

    /** Records the dead letter in the caller's transaction and, if it is about the run's current dispatch, stops the run. */
    public DeadLetter record(DeadLetterReport report) {
        return recordAll(List.of(report), List.of(), false).get(0);
    }

    /**
     * Records a sweep's batch of dead letters in the caller's transaction, by the same rule as {@link #record} for
     * each. What the rule needs to know about the runs (the run, its open dead letter, its current step's execution)
     * is read in three queries for the whole batch instead of three per run, and what it decides is written a
     * statement per table ({@link DeadLetterRows}), not entity by entity.
     *
     * @param lockedRuns the batch's runs, read and locked by the caller in this transaction and not changed since
     *                   (their changes are written by {@link DeadLetterRows}: nothing else of them would be)
     */
    public void recordSweepBatch(List<DeadLetterReport> reports, Collection<Run> lockedRuns) {
        recordAll(reports, lockedRuns, true);
    }

    private List<DeadLetter> recordAll(List<DeadLetterReport> reports, Collection<Run> atHand, boolean batch) {
        Instant now = clock.instant();
        RunsInQuestion runs = new RunsInQuestion(
                reports.stream().map(DeadLetterReport::runId).filter(Objects::nonNull).collect(Collectors.toSet()),
                reports.stream().filter(r -> !r.reason().aboutMessage()).map(DeadLetterReport::runId).filter(Objects::nonNull)
                        .collect(Collectors.toSet()), atHand, batch);
        List<DeadLetter> recorded = new ArrayList<>(reports.size());
        for (DeadLetterReport report : reports) {
            recorded.add(record(report, runs, now));
        }
        if (runs.oneOfMany) {
            // a batch (a sweep's): the rule decided every row in memory, and they are written a statement per table
            rows.write(runs.created, runs.stopped, runs.gaveUp);
            runs.created.forEach(deadLetter -> log(deadLetter, Level.FINE));
        }
        if (runs.oneOfMany && !runs.created.isEmpty()) {
            // a line per dead letter is in the event log (and here at FINE); thousands of warnings would bury the rest
            LOG.log(Level.WARNING, "{0} dead letter(s) recorded by {1}, by reason: {2}", new Object[] {runs.created.size(),
                    runs.created.get(0).detectedBy(), runs.created.stream()
                    .collect(Collectors.groupingBy(DeadLetter::reason, java.util.TreeMap::new, Collectors.counting()))});
        }
        return recorded;
    }

    private DeadLetter record(DeadLetterReport report, RunsInQuestion runs, Instant now) {
        Run run = report.runId() == null ? null : runs.run(report.runId());
        if (report.reason().aboutMessage() || report.runId() == null) {
            DeadLetter deadLetter = newDeadLetter(report, report.reason(), report.errorMessage(), now);
            if (report.runId() != null) {
                deadLetter.forRun(report.runId(), run != null ? run.pipeline() : report.pipeline(), report.step(), report.generation());
                if (run != null) {
                    deadLetter.withRunSnapshot(snapshot(run)).withTrace(run.traceId());
                }
            }
            return persist(deadLetter, runs);
        }
        if (run == null) {
            // the run row is gone (deleted by hand): the failure is evidence about a message of no run
            return record(DeadLetterReport.messageRejected(DeadLetterReason.RUN_NOT_FOUND, report.queue(), report.runId(),
                    report.step(), report.generation(), report.messageId(), report.messageBody(), report.attempts(),
                    "run " + report.runId() + " no longer exists; " + report.reason() + ": " + report.errorMessage(),
                    report.detectedBy()), runs, now);
        }
        Optional<DeadLetter> open = runs.openDeadLetter(run.id());
        if (open.isPresent()) {
            LOG.log(Level.FINE, "Run {0} already has open dead letter {1}", new Object[] {run.id(), open.get().id()});
            return open.get();
        }
        if (!report.concerns(run.generation()) || !run.state().isLive()) {
            return noteOnDispatch(run, report, now);
        }
        DeadLetterReason reason = report.reason();
        String error = report.errorMessage();
        if (reason != DeadLetterReason.MANUAL && requeuePolicy.exhausted(run.requeueCount())) {
            // the loop guard: this run has been brought back as often as allowed; park it for good
            error = DeadLetter.loopGuardError(reason, run.requeueCount(), requeuePolicy.maxPerRun(), error);
            reason = DeadLetterReason.REQUEUE_LIMIT;
        }
        DeadLetter deadLetter = newDeadLetter(report, reason, error, now)
                .forRun(run.id(), run.pipeline(), report.step() != null ? report.step() : run.currentStep(), run.generation())
                .withRunSnapshot(snapshot(run))
                .withTrace(run.traceId());
        long stoppedGeneration = run.generation(); // a fencing dead letter moves the run past it
        run.deadLetter(report.fence(), now);
        runs.stopped.add(run);
        runs.execution(run.id(), run.currentStep(), stoppedGeneration)
                .filter(step -> step.state() != StepState.COMPLETED)
                .ifPresent(step -> {
                    step.gaveUp(report.reason() + ": " + report.errorMessage(), report.lastAttemptFailed());
                    runs.gaveUp.add(step);
                });
        runs.nowHeldBy(run.id(), deadLetter);
        return persist(deadLetter, runs);
    }

    /**
     * What {@link #recordAll} needs to know about the runs of a batch, read once: the runs, their open dead letters
     * and their step executions. A dead letter recorded in the batch is added, so a second report about the same run
     * finds it.
     */
    private final class RunsInQuestion {

        private final Map<UUID, Run> runs = new HashMap<>();
        private final Map<UUID, DeadLetter> open = new HashMap<>();
        private final Map<String, StepExecution> executions = new HashMap<>();
        /** The dead letters this batch created, in order, the runs they stopped and the executions that gave up. */
        private final List<DeadLetter> created = new ArrayList<>();
        private final Set<Run> stopped = new java.util.LinkedHashSet<>();
        private final Set<StepExecution> gaveUp = new java.util.LinkedHashSet<>();
        /** A batch of reports: its rows are written by {@link DeadLetterRows}, not one by one by Hibernate. */
        private final boolean oneOfMany;

        /**
         * @param ids     the runs the reports name
         * @param holding those of them a report may stop: their open dead letters and executions are read too
         * @param atHand  runs already read in this transaction
         */
        RunsInQuestion(Set<UUID> ids, Set<UUID> holding, Collection<Run> atHand, boolean oneOfMany) {
            this.oneOfMany = oneOfMany;
            atHand.stream().filter(run -> ids.contains(run.id())).forEach(run -> runs.put(run.id(), run));
            // a run a report may stop is locked before anything is written for it, as the sweep locks its runs: two
            // detectors of one run then queue for it instead of each writing a dead letter (unique open_run_id) and
            // then waiting for the other's run row, a deadlock; the second finds the first's dead letter and keeps it
            read(ids.stream().filter(id -> !runs.containsKey(id) && holding.contains(id)).toList(), true);
            read(ids.stream().filter(id -> !runs.containsKey(id)).toList(), false);
            List<UUID> held = holding.stream().filter(runs::containsKey).toList();
            if (held.isEmpty()) {
                return;
            }
            // COMMIT: no flush of pending updates first; this keeps a sweep's run updates batched
            em.createQuery("select d from DeadLetter d where d.openRunId in :ids", DeadLetter.class)
                    .setFlushMode(FlushModeType.COMMIT)
                    .setParameter("ids", held)
                    .getResultStream().forEach(d -> open.put(d.runId(), d));
            em.createQuery("select s from StepExecution s where s.run.id in :ids", StepExecution.class)
                    .setFlushMode(FlushModeType.COMMIT)
                    .setParameter("ids", held)
                    .getResultStream().forEach(s -> executions.put(key(s.run().id(), s.stepName(), s.generation()), s));
        }

        /** Reads these runs, locked in id order (so that two lockers never wait for each other in a cycle) or not. */
        private void read(List<UUID> ids, boolean locked) {
            LockModeType lock = locked ? LockModeType.PESSIMISTIC_WRITE : LockModeType.NONE;
            if (ids.size() == 1) {
                Optional.ofNullable(em.find(Run.class, ids.get(0), lock)).ifPresent(run -> runs.put(run.id(), run));
            } else if (!ids.isEmpty()) {
                em.createQuery("select r from Run r where r.id in :ids order by r.id", Run.class).setParameter("ids", ids)
                        .setLockMode(lock)
                        .getResultStream().forEach(run -> runs.put(run.id(), run));
            }
        }

        Run run(UUID id) {
            return runs.get(id);
        }

        Optional<DeadLetter> openDeadLetter(UUID runId) {
            return Optional.ofNullable(open.get(runId));
        }

        Optional<StepExecution> execution(UUID runId, String step, long generation) {
            return Optional.ofNullable(executions.get(key(runId, step, generation)));
        }

        void nowHeldBy(UUID runId, DeadLetter deadLetter) {
            open.put(runId, deadLetter);
        }

        private static String key(UUID runId, String step, long generation) {
            return runId + "/" + step + "/" + generation;
        }
    }

    /**
     * Records in a transaction of its own: used by a consumer whose own transaction is about to roll back so
     * that the broker redelivers, and the redelivery is parked.
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
        deadLetterQueues.park(message, report.queue(), deadLetter);
        return deadLetter;
    }

    /**
     * A copy of a dispatch this dead letter explains reached the consumer (the delivery after the one that gave
     * up, or a late copy of a dispatch that was fenced or requeued since). In the caller's transaction, with
     * the dead letter locked: if it still holds its run and has no message in the DLQ, the copy is parked there,
     * marked with its token; otherwise it adds nothing but evidence, so it is noted on the dead letter and
     * acknowledged without running; unless it is the parked message itself, delivered again because its consumer died
     * before acknowledging it: that adds nothing at all.
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void takeCopyOfDispatch(long deadLetterId, DeliveryOutcomes.Delivery delivery, String detail) {
        DeadLetter deadLetter = em.find(DeadLetter.class, deadLetterId, LockModeType.PESSIMISTIC_WRITE);
        if (deadLetter.holdsRun() && !deadLetter.isParked()) {
            deadLetterQueues.park(delivery.message(), delivery.queue(), deadLetter);
            LOG.log(Level.INFO, "Dead letter {0}: its message is parked in {1} ({2})", new Object[] {deadLetterId,
                    deadLetter.deadLetterQueue(), detail});
            return;
        }
        if (deadLetter.isParked() && delivery.redelivered() && Objects.equals(deadLetter.messageId(), delivery.messageId())) {
            LOG.log(Level.INFO, "Dead letter {0}: its message was parked before its consumer died; the delivery is acknowledged",
                    deadLetterId);
            return;
        }
        String note = "a copy of this dispatch's message arrived on " + delivery.queue() + " and was acknowledged without running: "
                + detail + (deadLetter.isOpen() ? "" : "; this dead letter is " + deadLetter.status());
        deadLetter.addNote(DeadLetterReport.CONSUMER, Text.truncate(note, 4000), clock.instant());
        LOG.log(Level.INFO, "Dead letter {0}: {1}", new Object[] {deadLetterId, note});
    }

    /**
     * A message parked with this dead letter came back from the DLQ (an operator pressed Retry in the Artemis console)
     * and can resume nothing: a message on its own, or its dead letter no longer holds the run. It is parked again under
     * the same dead letter, which says so. In the caller's transaction, with the dead letter locked.
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void parkAgain(DeadLetter deadLetter, DeliveryOutcomes.Delivery delivery) {
        deadLetter.addNote(CONSOLE, "retried from the Artemis console; " + (deadLetter.reason().aboutMessage()
                ? "a message on its own resumes nothing" : "its dead letter is " + deadLetter.status() + " and holds no run")
                + ", so it was parked again in " + deadLetter.deadLetterQueue(), clock.instant());
        deadLetterQueues.park(delivery.message(), delivery.queue(), deadLetter);
    }

    /**
     * Why this dead letter cannot bring its run back now, or empty if it can: the one check every requeue path
     * makes, under the locks of both rows.
     */
    public Optional<String> whyNotResumable(DeadLetter deadLetter, Run run) {
        long id = deadLetter.id();
        if (!deadLetter.isOpen()) {
            return Optional.of("dead letter " + id + " is already " + deadLetter.status()
                    + (deadLetter.closedBy() != null ? " (by " + deadLetter.closedBy() + " at " + deadLetter.closedAt() + ")" : ""));
        }
        if (deadLetter.reason() == DeadLetterReason.REQUEUE_LIMIT) {
            return Optional.of("dead letter " + id + ": run " + deadLetter.runId() + " was parked by the loop guard"
                    + " (lazarus.requeue.max-per-run = " + requeuePolicy.maxPerRun() + "); resolve or discard it instead");
        }
        if (deadLetter.reason().aboutMessage() && !deadLetter.holdsRun()) {
            return Optional.of("dead letter " + id + " (" + deadLetter.reason() + ") is about a message on its own"
                    + (deadLetter.runId() != null ? ", not about run " + deadLetter.runId() + "'s state" : "")
                    + ": there is nothing to resume; resolve or discard it instead");
        }
        if (!deadLetter.holdsRun()) {
            return Optional.of("dead letter " + id + " does not hold run " + deadLetter.runId() + " (the run is not stopped by it;"
                    + " see the run's own dead letter): resolve or discard it instead");
        }
        if (run == null) {
            return Optional.of("run " + deadLetter.runId() + " no longer exists; the dead letter keeps its snapshot");
        }
        long behind = deadLetter.generation() == null ? -1 : run.generation() - deadLetter.generation();
        if (run.state() != RunState.DEAD_LETTERED || behind < 0 || behind > 1) {
            return Optional.of("dead letter " + id + " is about dispatch " + deadLetter.generation() + " but run " + run.id()
                    + " is " + run.state() + " at dispatch " + run.generation() + ": they disagree, so it cannot be requeued;"
                    + " resolve or discard it");
        }
        if (requeuePolicy.exhausted(run.requeueCount())) {
            return Optional.of("run " + run.id() + " has been requeued " + run.requeueCount() + " times, the limit"
                    + " (lazarus.requeue.max-per-run = " + requeuePolicy.maxPerRun() + "); resolve or discard it instead");
        }
        return Optional.empty();
    }

    /**
     * An operator stops a live run by hand, in the caller's transaction: a {@code MANUAL} dead letter holds it, for the
     * dispatch it is at (its current step: a run stopped between steps is held at the step its message waits for, the
     * one before it having committed), with who and why in its audit trail. The stop fences the run like a sweep does
     * (a new generation), so no message of that dispatch ever runs the step after this commits: one waiting in the
     * queue or for its redelivery is parked with the dead letter when it arrives, and a handler running right now
     * cannot record its result (its transaction's version check fails, or it finds the run moved on). A requeue brings
     * the run back at that step, like any dead letter.
     *
     * <p>The run is locked first, as every detector locks it: a stop racing a consumer's commit, a sweep, a requeue or
     * another stop waits for the other and then judges the run as it left it.
     *
     * @throws Problem 404 if there is no such run; 409 if it has ended (completed, or dead-lettered: a second stop), or
     *                 another transaction holds it past the lock timeout
     */
    public DeadLetter stop(UUID runId, String operator, String note) {
        Run run = locked(runId);
        if (run == null) {
            throw Problem.notFound("no run " + runId);
        }
        if (!run.state().isLive()) {
            throw Problem.conflict("run " + runId + " has already ended: it is " + run.state() + " (at step " + run.currentStep()
                    + "); only a live run (PENDING, IN_PROGRESS or RETRYING) can be stopped");
        }
        StepDefinition step = pipelines.step(run.pipeline(), run.currentStep()).orElseThrow(() -> Problem.conflict("run " + runId
                + " is at step " + run.currentStep() + " of pipeline " + run.pipeline() + ", which this deployment does not have:"
                + " its queue is unknown here"));
        int attempts = stepExecutions.of(run.id(), step.name(), run.generation()).map(StepExecution::attempts).orElse(0);
        DeadLetter deadLetter = record(DeadLetterReport.stoppedByHand(step, run.id(), run.generation(), attempts, operator, note));
        em.flush(); // anything the database refuses is refused here, inside the stop (the dead letter is logged as it is recorded)
        return deadLetter;
    }

    /** The run, locked for writing; waiting longer than the lock timeout is a 409 (someone else is changing it). */
    private Run locked(UUID runId) {
        try {
            return em.find(Run.class, runId, LockModeType.PESSIMISTIC_WRITE);
        } catch (PersistenceException e) {
            if (Failures.isLockTimeout(e)) {
                throw Problem.conflict("run " + runId + " is being changed by another transaction right now (a step committing,"
                        + " or one a crash left in doubt until recovery settles it); try again shortly");
            }
            throw e;
        }
    }

    /**
     * Brings the run a dead letter holds back to life at its current step, closing the dead letter, both in the
     * caller's transaction (the caller holds both rows locked and dispatches the step).
     *
     * @return the generation of the new dispatch
     * @throws Problem 409 if they do not agree (see {@link #whyNotResumable})
     */
    public long resume(DeadLetter deadLetter, Run run, String actor, String method, Instant now) {
        whyNotResumable(deadLetter, run).ifPresent(why -> {
            throw Problem.conflict(why);
        });
        long generation = run.requeue(now);
        deadLetter.requeued(actor, method, now);
        return generation;
    }

    /**
     * Like {@link #resume}, but the stopped step is finished by hand (an output supplied, or skipped): the run goes on
     * at {@code nextStep} (null: it completes) with {@code payload}, closing the dead letter, in the caller's
     * transaction (which holds both rows locked and dispatches the next step).
     *
     * @return the generation of the next dispatch
     * @throws Problem 409 if they do not agree (see {@link #whyNotResumable})
     */
    public long continueByHand(DeadLetter deadLetter, Run run, String actor, String method, String nextStep, String payload, Instant now) {
        whyNotResumable(deadLetter, run).ifPresent(why -> {
            throw Problem.conflict(why);
        });
        long generation = run.continueByHand(nextStep, payload, now);
        deadLetter.requeued(actor, method, now);
        return generation;
    }

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
            known = findForDispatch(message.runId(), message.generation());
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
        DeadLetter deadLetter = known.orElseGet(() -> record(report));
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

    /** The dead letter recorded for this dispatch of the run (not one about a message on its own), open or not. */
    public Optional<DeadLetter> findForDispatch(UUID runId, long generation) {
        return em.createQuery("select d from DeadLetter d where d.runId = :run and d.generation = :generation"
                        + " and d.reason not in :aboutMessage order by d.id", DeadLetter.class)
                .setParameter("run", runId)
                .setParameter("generation", generation)
                .setParameter("aboutMessage", ABOUT_MESSAGE)
                .setMaxResults(1)
                .getResultStream()
                .findFirst();
    }

    /** The dead letter a message out of a DLQ was parked with, locked, if its mark is genuine. */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public Optional<DeadLetter> lockedParkedWith(DeadLetterQueues.ParkedMark mark) {
        return Optional.ofNullable(em.find(DeadLetter.class, mark.deadLetterId(), LockModeType.PESSIMISTIC_WRITE))
                .filter(d -> d.parkedWith(mark.token()));
    }

    /** A dead letter about this message on its own (a refusal), recorded on this queue, if there is one. */
    public Optional<DeadLetter> findAboutMessage(String messageId, String queue) {
        if (messageId == null) {
            return Optional.empty();
        }
        return em.createQuery("select d from DeadLetter d where d.messageId = :message and d.queue = :queue"
                        + " and d.reason in :aboutMessage order by d.id", DeadLetter.class)
                .setParameter("message", messageId)
                .setParameter("queue", queue)
                .setParameter("aboutMessage", ABOUT_MESSAGE)
                .setMaxResults(1)
                .getResultStream()
                .findFirst();
    }

    /** Evidence about a dispatch the run has moved past, or about a run that has stopped: a note, nothing else. */
    private DeadLetter noteOnDispatch(Run run, DeadLetterReport report, Instant now) {
        String note = report.detectedBy() + " reported " + report.reason() + " for dispatch " + report.generation()
                + " when run " + run.id() + " was already " + run.state() + " at dispatch " + run.generation()
                + "; it changed nothing: " + report.errorMessage();
        Optional<DeadLetter> ofDispatch = report.generation() == null ? Optional.empty() : findForDispatch(run.id(), report.generation());
        if (ofDispatch.isPresent()) {
            ofDispatch.get().addNote(report.detectedBy(), Text.truncate(note, 4000), now);
            LOG.log(Level.INFO, "Dead letter {0}: {1}", new Object[] {ofDispatch.get().id(), note});
            return ofDispatch.get();
        }
        return record(DeadLetterReport.messageRejected(DeadLetterReason.STALE_MESSAGE, report.queue(), run.id(), report.step(),
                report.generation(), report.messageId(), report.messageBody(), report.attempts(), note, report.detectedBy()));
    }

    private DeadLetter newDeadLetter(DeadLetterReport report, DeadLetterReason reason, String error, Instant now) {
        DeadLetterReport.ByHand byHand = report.byHand();
        return new DeadLetter(reason, report.queue(), report.deadLetterQueue(), report.detectedBy(),
                        byHand != null ? byHand.operator() : report.detectedBy(), byHand != null ? byHand.note() : null, now)
                .withMessage(report.messageId(), report.messageBody())
                .withError(report.exceptionClass(), error, report.stackTrace(), report.stack(), report.attempts());
    }

    private DeadLetter persist(DeadLetter deadLetter, RunsInQuestion batch) {
        batch.created.add(deadLetter);
        if (batch.oneOfMany) {
            return deadLetter; // written with the rest of the batch, and logged then
        }
        em.persist(deadLetter); // inserted at flush; the one-open-per-run constraint is checked then
        log(deadLetter, deadLetter.reason() == DeadLetterReason.STALE_MESSAGE ? Level.INFO : Level.WARNING);
        return deadLetter;
    }

    private static void log(DeadLetter deadLetter, Level level) {
        if (LOG.isLoggable(level)) {
            LOG.log(level, "Dead letter {0}: {1} on queue {2}, run {3}, step {4}{5}: {6}", new Object[] {deadLetter.id(),
                    deadLetter.reason(), deadLetter.queue(), deadLetter.runId(), deadLetter.stepName(),
                    deadLetter.holdsRun() ? "" : " (the message alone)", deadLetter.errorMessage()});
        }
    }

    /**
     * The run as it was when it stopped, kept with the dead letter even if the run changes or disappears. The
     * payload is embedded as JSON (no second escaping); one too large for the column is cut, and says so.
     */
    static String snapshot(Run run) {
        String full = snapshot(run, builder -> {
            try (var reader = JSON.createReader(new StringReader(run.payload()))) {
                builder.add("payload", reader.readValue());
            } catch (RuntimeException notJson) {
                // not JSON, or nested deeper than the parser reads: kept as the text it is
                builder.add("payload", run.payload());
            }
        });
        if (full.length() <= DeadLetter.MAX_SNAPSHOT) {
            return full;
        }
        // as a string, escaping makes it longer still: keep a prefix whose escaped form fits, and say how long it was
        String payload = run.payload();
        int keep = Math.min(payload.length(), DeadLetter.MAX_SNAPSHOT - SNAPSHOT_OVERHEAD);
        while (true) {
            String prefix = payload.substring(0, keep);
            String cut = snapshot(run, builder -> builder.add("payloadTruncated", true)
                    .add("payloadCharacters", payload.length())
                    .add("payload", prefix));
            if (cut.length() <= DeadLetter.MAX_SNAPSHOT) {
                return cut;
            }
            keep = (int) ((long) keep * (DeadLetter.MAX_SNAPSHOT - SNAPSHOT_OVERHEAD) / cut.length());
        }
    }

    private static String snapshot(Run run, Consumer<JsonObjectBuilder> payload) {
        JsonObjectBuilder builder = JSON.createObjectBuilder()
                .add("id", run.id().toString())
                .add("pipeline", run.pipeline())
                .add("state", run.state().name())
                .add("currentStep", String.valueOf(run.currentStep()))
                .add("generation", run.generation())
                .add("requeueCount", run.requeueCount())
                .add("createdAt", run.createdAt().toString())
                .add("updatedAt", run.updatedAt().toString());
        payload.accept(builder);
        return builder.build().toString();
    }
}
