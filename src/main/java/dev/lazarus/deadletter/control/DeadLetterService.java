package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.pipeline.control.Pipelines;
import dev.lazarus.pipeline.control.StepAttempts;
import dev.lazarus.pipeline.control.StepExecutions;
import dev.lazarus.pipeline.entity.AttemptOutcome;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.pipeline.entity.Run;
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
import jakarta.persistence.EntityManager;
import jakarta.persistence.FlushModeType;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.PersistenceException;
import java.time.Clock;
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

    private static final List<DeadLetterReason> ABOUT_MESSAGE = DeadLetterReason.ABOUT_A_MESSAGE;

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

    @Inject
    Pipelines pipelines;

    @Inject
    StepExecutions stepExecutions;

    @Inject
    StepAttempts attempts;

    @Inject
    DeadLetters reads;

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
        }
        attempts.endedAll(runs.attemptsStopped, now); // one statement for the batch
        if (runs.oneOfMany) {
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
                    deadLetter.withRunSnapshot(RunSnapshots.of(run)).withTrace(run.traceId());
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
                .withRunSnapshot(RunSnapshots.of(run))
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
        runs.attemptsStopped.add(new StepAttempts.Stopped(run.id(), stoppedGeneration, attemptEnding(report, reason)));
        runs.nowHeldBy(run.id(), deadLetter);
        return persist(deadLetter, runs);
    }

    /**
     * How the attempt in progress of a dispatch a dead letter stops ended: its handler's last failure (when the consumer
     * reports it), timed out (the sweeper found it stuck in progress), or interrupted (stopped by an operator or a rule
     * while it ran, or given up after attempts that never finished).
     */
    private static StepAttempts.Ending attemptEnding(DeadLetterReport report, DeadLetterReason reason) {
        if (report.lastAttemptFailed()) {
            return new StepAttempts.Ending(report.reason() == DeadLetterReason.NON_RETRYABLE ? AttemptOutcome.NON_RETRYABLE
                    : AttemptOutcome.FAILED, report.exceptionClass(), report.errorMessage());
        }
        return new StepAttempts.Ending(report.reason() == DeadLetterReason.STUCK_IN_PROGRESS ? AttemptOutcome.TIMED_OUT
                : AttemptOutcome.INTERRUPTED, null, "run stopped by dead letter (" + reason + "): " + report.errorMessage());
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
        /** The attempts in progress of the dispatches the batch stopped, and how each ended. */
        private final List<StepAttempts.Stopped> attemptsStopped = new ArrayList<>();
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

    /** Evidence about a dispatch the run has moved past, or about a run that has stopped: a note, nothing else. */
    private DeadLetter noteOnDispatch(Run run, DeadLetterReport report, Instant now) {
        String note = report.detectedBy() + " reported " + report.reason() + " for dispatch " + report.generation()
                + " when run " + run.id() + " was already " + run.state() + " at dispatch " + run.generation()
                + "; it changed nothing: " + report.errorMessage();
        Optional<DeadLetter> ofDispatch = report.generation() == null ? Optional.empty() : reads.findForDispatch(run.id(), report.generation());
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
}
