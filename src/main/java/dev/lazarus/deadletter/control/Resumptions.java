package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.RunState;
import dev.lazarus.platform.control.Problem;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.Optional;

/**
 * Whether a dead letter can bring its run back, and bringing it back: the one check every requeue path makes (one,
 * bulk, console Retry, fix and continue), under the locks of both rows, which the caller holds in its transaction. A
 * run and its dead letter change together here, as they do when {@link DeadLetterService} records one.
 */
@ApplicationScoped
public class Resumptions {

    @Inject
    RequeuePolicy requeuePolicy;

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
}
