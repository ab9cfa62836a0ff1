package dev.lazarus.pipeline.control;

import dev.lazarus.platform.control.Failures;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The attempt of a first delivery that runs in the consumer's transaction without having been written first
 * (see {@link StepLedger}). Most steps finish quickly and their attempt is written with their success, in one
 * transaction. Two things make it worth writing on its own, in a transaction of its own, before the step ends:
 * <ul>
 * <li>the step runs longer than {@code lazarus.consumer.in-progress-after}: a timer writes it, so the run shows
 * {@code IN_PROGRESS} with a heartbeat (the sweeper's and the operator's view of a busy step) and the attempt
 * counts even if its server dies now;</li>
 * <li>the step failed: its failure is recorded against a written attempt, exactly as for any other delivery.</li>
 * </ul>
 * It is written at most once: the {@link AttemptWatch} (one watcher for every attempt, rather than a timer each) and the
 * consumer's thread agree here on who writes it, and the consumer waits for a write in progress before it records
 * anything else about the step. A watcher's write that fails (the database is away, a lock wait ran out) is tried again
 * after the same delay for as long as the step runs: while it is not written the run looks PENDING, and the sweeper's
 * {@code waiting-after} clock keeps running.
 */
public final class InlineAttempt {

    private static final Logger LOG = Logger.getLogger(InlineAttempt.class.getName());

    private enum State { PENDING, WRITING, WRITTEN, NOT_WRITTEN }

    private final String name;
    private final int deliveryCount;
    private final Instant startedAt;
    private final Function<StepAttempts.Ending, Boolean> write;
    private final AttemptWatch watch;
    private final Duration writeAfter;
    private State state = State.PENDING;
    /** When the watcher writes it (System.nanoTime), unless the step ends first. */
    private volatile long dueAt;

    private InlineAttempt(String name, int deliveryCount, Instant startedAt, Function<StepAttempts.Ending, Boolean> write, AttemptWatch watch,
                          Duration writeAfter) {
        this.name = name;
        this.deliveryCount = deliveryCount;
        this.startedAt = startedAt;
        this.write = write;
        this.watch = watch;
        this.writeAfter = writeAfter;
        this.dueAt = System.nanoTime() + writeAfter.toNanos();
    }

    /**
     * @param name  the dispatch, for the log
     * @param write writes the attempt in a transaction of its own, ended as it says (null: still running); whether it
     *              did (not if the run moved on)
     */
    static InlineAttempt start(String name, int deliveryCount, Instant startedAt, Function<StepAttempts.Ending, Boolean> write, AttemptWatch watch,
                               Duration writeAfter) {
        InlineAttempt attempt = new InlineAttempt(name, deliveryCount, startedAt, write, watch, writeAfter);
        watch.watch(attempt);
        return attempt;
    }

    /** Whether the watcher should write it now (at {@code now}, System.nanoTime). */
    boolean due(long now) {
        return now - dueAt >= 0;
    }

    public int deliveryCount() {
        return deliveryCount;
    }

    public Instant startedAt() {
        return startedAt;
    }

    /**
     * The step ended (well, or the delivery is over): the timer is stopped for good, after a write in progress has
     * finished. Whether the attempt was written meanwhile. May be called more than once.
     */
    synchronized boolean finish() {
        awaitNoWriteInProgress();
        if (state == State.PENDING) {
            state = State.NOT_WRITTEN;
        }
        watch.forget(this);
        return state == State.WRITTEN;
    }

    /** Whether the attempt was written in a transaction of its own (after {@link #finish} or {@link #writeNow}). */
    synchronized boolean recorded() {
        return state == State.WRITTEN;
    }

    /**
     * The step failed (or its call ended in an error): the attempt is written now, ended as {@code ending} says, if it
     * was not already (then its end is recorded with the failure). Whether it is written.
     */
    boolean writeNow(StepAttempts.Ending ending) {
        synchronized (this) {
            awaitNoWriteInProgress();
            if (state != State.PENDING) {
                return state == State.WRITTEN;
            }
            state = State.WRITING;
        }
        watch.forget(this);
        boolean written = false;
        try {
            written = Boolean.TRUE.equals(write.apply(ending));
        } catch (RuntimeException e) {
            // the failure is recorded as for any delivery whose attempt could not be written (it counts as interrupted)
            LOG.log(Level.WARNING, "Could not write the attempt of {0} before recording its failure: {1}",
                    new Object[] {name, Failures.rootMessage(e)});
        } finally {
            settle(written ? State.WRITTEN : State.NOT_WRITTEN);
        }
        return written;
    }

    /** The watcher's write: the step has run for {@code lazarus.consumer.in-progress-after} and is still running. */
    void writeIfStillPending() {
        synchronized (this) {
            if (state != State.PENDING) {
                return;
            }
            state = State.WRITING;
        }
        State outcome = State.PENDING;
        try {
            outcome = Boolean.TRUE.equals(write.apply(null)) ? State.WRITTEN : State.NOT_WRITTEN;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not write the attempt of {0}, which has been running for {1} ms; trying again in {2} ms: {3}",
                    new Object[] {name, Duration.between(startedAt, Instant.now()).toMillis(), writeAfter.toMillis(),
                            Failures.rootMessage(e)});
        } finally {
            synchronized (this) {
                state = outcome; // PENDING again if it failed (or an Error passed): the step still runs, try again
                if (outcome == State.PENDING) {
                    dueAt = System.nanoTime() + writeAfter.toNanos(); // unless the step ends first: finish() forgets it
                    watch.watch(this);
                }
                notifyAll();
            }
        }
    }

    private synchronized void settle(State outcome) {
        state = outcome;
        notifyAll();
    }

    /** Waits while the attempt is being written (a transaction of its own, bounded by the transaction timeout). */
    private void awaitNoWriteInProgress() {
        boolean interrupted = false;
        while (state == State.WRITING) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true; // the outcome must be known before anything else is recorded about the step
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
