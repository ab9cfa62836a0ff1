package dev.lazarus.pipeline.control;

import dev.lazarus.platform.control.Failures;
import dev.lazarus.platform.control.TimerRuns;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Sends the dispatches that transactions recorded, once they have committed (see {@link StepDispatcher}), and keeps
 * the promise that every one of them is sent.
 *
 * <p>A transaction that records a dispatch to be sent after it commits names this node's incarnation on the run
 * ({@code run.dispatched_by}): the node, and the start it is in. Whatever stops the send, the dispatch is sent again
 * from the database, never from memory:
 * <ul>
 * <li>the node dies between the commit and the send: its incarnation falls silent, and {@code DispatchRecovery} on any
 * node (on this one after it starts again, at once) sends the dispatches it left waiting;</li>
 * <li>the broker refuses or cannot be reached: the node retires its incarnation (it takes a new one), and the old one's
 * dispatches are sent again the same way once the broker takes messages.</li>
 * </ul>
 * Only the dispatches that may not have been sent are sent again: each incarnation says, every few seconds, until when
 * everything it recorded was sent ({@link #sentUntil}: the start of the oldest recording still under way, or of the
 * oldest whose send failed), and a run's {@code updated_at}, stamped in the recording's transaction, is no earlier
 * than its recording's start. So a node that dies under a long backlog does not have the whole backlog sent again.
 * A copy the broker already has is dropped by its duplicate detection (the dispatch's id); one it no longer remembers is
 * a replay that the run's fencing acknowledges without running.
 */
@ApplicationScoped
public class Dispatches {

    private static final Logger LOG = Logger.getLogger(Dispatches.class.getName());

    @Inject
    StepDispatcher dispatcher;

    @Inject
    Clock clock;

    /** This node's current incarnation. */
    private volatile Incarnation current = new Incarnation();

    /** Passes in a row that retired an incarnation (only the recovery's thread reads and writes it). */
    private int retiredInARow;

    /** One life of this node as the dispatches it records name it, and what of them may not have been sent yet. */
    private static final class Incarnation {
        final String name = TimerRuns.NODE + "/" + UUID.randomUUID();
        /** The recordings under way (a transaction recording dispatches, until their sends are done), by thread. */
        final Map<Thread, Instant> recording = new ConcurrentHashMap<>();
        /** The start of the oldest recording whose send failed; null if none did. */
        volatile Instant failedSince;

        /** Until when everything this incarnation recorded was sent: the oldest recording under way or failed, or now. */
        Instant sentUntil(Instant now) {
            Instant until = failedSince != null && failedSince.isBefore(now) ? failedSince : now;
            for (Instant started : recording.values()) {
                if (started.isBefore(until)) {
                    until = started;
                }
            }
            return until;
        }
    }

    /** The name this node's transactions give the dispatches they record: the incarnation that sends them. */
    public String incarnation() {
        return current.name;
    }

    /**
     * A recording of dispatches begins on this thread: call before the transaction that records them (it stamps their
     * runs' {@code updated_at} no earlier than now), and {@link Recording#close} once their sends are done, whatever
     * happened. The incarnation to name on the runs is the recording's.
     */
    public Recording recording() {
        return new Recording(current, clock.instant());
    }

    /** See {@link #recording()}. */
    public final class Recording implements AutoCloseable {
        private final Incarnation incarnation;
        private final Instant startedAt;

        private Recording(Incarnation incarnation, Instant startedAt) {
            this.incarnation = incarnation;
            this.startedAt = startedAt;
            incarnation.recording.put(Thread.currentThread(), startedAt);
        }

        /** The incarnation the recorded runs name. */
        public String incarnation() {
            return incarnation.name;
        }

        /** When it began: the runs it records are stamped no earlier (on this node's clock). */
        public Instant startedAt() {
            return startedAt;
        }

        /**
         * Sends dispatches the recording's transaction committed, outside any transaction. One the broker does not take
         * is left to {@code DispatchRecovery}: this incarnation is retired at its next pass, and whatever it recorded
         * since this recording began is sent again. Whether all were sent.
         */
        public boolean send(List<StepDispatcher.Dispatch> dispatches) {
            for (int i = 0; i < dispatches.size(); i++) {
                try {
                    dispatcher.send(dispatches.get(i));
                } catch (RuntimeException e) {
                    Instant failed = incarnation.failedSince;
                    mayBeUnsent();
                    LOG.log(failed == null ? Level.WARNING : Level.FINE, "Could not send {0} of {1} dispatch(es) after their"
                            + " transaction committed ({2}); they are recorded, and the dispatch recovery sends them again once the"
                            + " broker takes messages", new Object[] {dispatches.size() - i, dispatches.size(), Failures.rootMessage(e)});
                    return false;
                }
            }
            return true;
        }

        /**
         * The recording's transaction failed without saying whether it committed: its commit was cut (the database went
         * away while committing answers a heuristic hazard), so its dispatches may be recorded and never sent. They are
         * left to {@code DispatchRecovery} as a failed send is: this incarnation is retired at its next pass. Call it for
         * any failure but the caller's own refusal (a bad request rolls back for sure); a recording that did not commit
         * costs only a look for runs that name the incarnation.
         */
        public void outcomeUnknown() {
            mayBeUnsent();
        }

        private void mayBeUnsent() {
            Instant failed = incarnation.failedSince;
            if (failed == null || startedAt.isBefore(failed)) {
                incarnation.failedSince = startedAt;
            }
        }

        @Override
        public void close() {
            incarnation.recording.remove(Thread.currentThread(), startedAt);
        }
    }

    /** Until when everything the current incarnation recorded was sent (on this node's clock, as runs are stamped). */
    public Instant sentUntil() {
        return current.sentUntil(clock.instant());
    }

    /**
     * If a send failed since the last call: this node takes a new incarnation, and returns the one it retires, with
     * until when its dispatches were sent (the recovery sends again the ones after). Dispatches recorded from now on name
     * the new one. Null if nothing failed.
     */
    public Retired retireIfSendFailed() {
        Incarnation failing = current;
        if (failing.failedSince == null) {
            retiredInARow = 0;
            return null;
        }
        current = new Incarnation();
        // while the broker stays away every pass retires the one before: said once, then at FINE
        LOG.log(retiredInARow++ == 0 ? Level.WARNING : Level.FINE, "A dispatch could not be sent after its transaction committed:"
                + " incarnation {0} is retired, and the dispatches it recorded since {1} are sent again once the broker takes"
                + " them (node {2} goes on as {3})", new Object[] {failing.name, failing.failedSince, TimerRuns.NODE, current.name});
        return new Retired(failing.name, failing.sentUntil(clock.instant()));
    }

    /** An incarnation this node retired, and until when what it recorded was sent. */
    public record Retired(String incarnation, Instant sentUntil) {
    }
}
