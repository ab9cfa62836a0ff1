package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.pipeline.control.Pipelines;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.pipeline.control.StepDispatcher;
import dev.lazarus.pipeline.control.StepMessage;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.platform.control.Problem;
import jakarta.annotation.Resource;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import java.time.Clock;
import java.time.Instant;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Brings a dead-lettered run back to life: the one requeue used by the admin page and the REST API.
 *
 * <p>In one XA transaction it takes the run's message out of {@code DLQ.<queue>}, gives the run a new
 * generation (so the old message, wherever a copy of it may be, can never execute), sends a fresh message
 * for the same step to the original queue with the provenance stamped on it, and closes the dead letter
 * with who did it and when. The fresh message starts with a delivery count of one, so the step gets its
 * full retry policy again. If the DLQ message is gone (purged in the console) the step is dispatched from
 * the database all the same. Two operators requeueing at once: the row lock lets exactly one through.
 */
@Stateless
@RolesAllowed("operator")
public class RequeueService {

    private static final Logger LOG = Logger.getLogger(RequeueService.class.getName());

    public static final String MOVED = "MOVED_FROM_DLQ";
    public static final String REDISPATCHED = "REDISPATCHED";
    public static final String REPLAYED_FROM_CONSOLE = "REPLAYED_FROM_CONSOLE";

    @PersistenceContext
    EntityManager em;

    @Inject
    Pipelines pipelines;

    @Inject
    DeadLetterQueues deadLetterQueues;

    @Inject
    StepDispatcher dispatcher;

    @Inject
    RequeuePolicy requeuePolicy;

    @Inject
    Clock clock;

    @Resource
    SessionContext session;

    public DeadLetter requeue(long deadLetterId) {
        String operator = session.getCallerPrincipal().getName();
        DeadLetter deadLetter = em.find(DeadLetter.class, deadLetterId, LockModeType.PESSIMISTIC_WRITE);
        if (deadLetter == null) {
            throw Problem.notFound("no dead letter " + deadLetterId);
        }
        if (!deadLetter.isOpen()) {
            throw Problem.conflict("dead letter " + deadLetterId + " is already " + deadLetter.status()
                    + (deadLetter.closedBy() != null ? " (by " + deadLetter.closedBy() + " at " + deadLetter.closedAt() + ")" : ""));
        }
        if (deadLetter.reason() == DeadLetterReason.REQUEUE_LIMIT) {
            throw Problem.conflict("dead letter " + deadLetterId + ": run " + deadLetter.runId() + " was parked by the loop guard"
                    + " (lazarus.requeue.max-per-run = " + requeuePolicy.maxPerRun() + "); resolve or discard it instead");
        }
        if (!deadLetter.canBeRequeued()) {
            throw Problem.conflict("dead letter " + deadLetterId + " (" + deadLetter.reason()
                    + ") has no run to resume: the message was never a valid step; discard it instead");
        }
        Run run = em.find(Run.class, deadLetter.runId(), LockModeType.PESSIMISTIC_WRITE);
        if (run == null) {
            throw Problem.conflict("run " + deadLetter.runId() + " no longer exists; the dead letter keeps its snapshot");
        }
        if (deadLetter.reason() == DeadLetterReason.REQUEUE_LIMIT || requeuePolicy.exhausted(run.requeueCount())) {
            throw Problem.conflict("run " + run.id() + " has been requeued " + run.requeueCount() + " times, the limit"
                    + " (lazarus.requeue.max-per-run = " + requeuePolicy.maxPerRun() + "); resolve or discard it instead");
        }
        StepDefinition step = pipelines.step(run.pipeline(), run.currentStep()).orElseThrow(() -> Problem.conflict(
                "pipeline " + run.pipeline() + " has no step " + run.currentStep() + " any more; it cannot be requeued"));

        int taken = deadLetterQueues.take(step.deadLetterQueue(), run.id());
        Instant now = clock.instant();
        long generation = run.requeue(now);
        deadLetter.requeued(operator, taken > 0 ? MOVED : REDISPATCHED, now);
        dispatcher.redispatch(step, new StepMessage(run.id(), step.name(), generation),
                new StepDispatcher.Requeue(run.requeueCount(), operator, now));
        LOG.log(Level.INFO, "Run {0} requeued at step {1} by {2} ({3} message(s) taken from {4})",
                new Object[] {run.id(), step.name(), operator, taken, step.deadLetterQueue()});
        return deadLetter;
    }
}
