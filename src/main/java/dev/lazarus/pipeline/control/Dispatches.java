package dev.lazarus.pipeline.control;

import dev.lazarus.platform.control.Failures;
import dev.lazarus.platform.control.TimerRuns;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.JMSRuntimeException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
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
 * node (on this one after it starts again, at once) sends every dispatch it left waiting;</li>
 * <li>the broker refuses or cannot be reached: the node retires its incarnation (it takes a new one), and the old one's
 * dispatches are sent again the same way once the broker takes messages.</li>
 * </ul>
 * A copy the broker already has is dropped by its duplicate detection (the dispatch's id); one it no longer remembers is
 * a replay that the run's fencing acknowledges without running.
 */
@ApplicationScoped
public class Dispatches {

    private static final Logger LOG = Logger.getLogger(Dispatches.class.getName());

    @Inject
    StepDispatcher dispatcher;

    private final AtomicReference<String> incarnation = new AtomicReference<>(newIncarnation());

    /** Set when a send failed: the recovery retires the incarnation whose dispatches may not have been sent. */
    private final AtomicBoolean sendFailed = new AtomicBoolean();

    private static String newIncarnation() {
        return TimerRuns.NODE + "/" + UUID.randomUUID();
    }

    /** The name this node's transactions give the dispatches they record: the incarnation that sends them. */
    public String incarnation() {
        return incarnation.get();
    }

    /**
     * Sends dispatches whose transaction has committed, outside any transaction. One the broker does not take is left
     * to {@code DispatchRecovery}; whether all were sent.
     */
    public boolean sendCommitted(List<StepDispatcher.Dispatch> dispatches) {
        for (int i = 0; i < dispatches.size(); i++) {
            try {
                dispatcher.send(dispatches.get(i));
            } catch (JMSRuntimeException | IllegalStateException e) {
                boolean first = !sendFailed.getAndSet(true);
                LOG.log(first ? Level.WARNING : Level.FINE, "Could not send {0} of {1} dispatch(es) after their transaction committed ({2}); they are"
                        + " recorded, and the dispatch recovery sends them again once the broker takes messages",
                        new Object[] {dispatches.size() - i, dispatches.size(), Failures.rootMessage(e)});
                return false;
            }
        }
        return true;
    }

    /**
     * If a send failed since the last call: this node takes a new incarnation, and returns the one it retires (whose
     * dispatches the recovery sends again). Dispatches recorded from now on name the new one.
     */
    public String retireIfSendFailed() {
        if (!sendFailed.getAndSet(false)) {
            retiredInARow = 0;
            return null;
        }
        String retired = incarnation.getAndSet(newIncarnation());
        // while the broker stays away every pass retires the one before: said once, then at FINE
        LOG.log(retiredInARow++ == 0 ? Level.WARNING : Level.FINE, "A dispatch could not be sent after its transaction committed:"
                + " incarnation {0} is retired, and the dispatches it recorded are sent again once the broker takes them (node {1}"
                + " goes on as {2})", new Object[] {retired, TimerRuns.NODE, incarnation()});
        return retired;
    }

    /** Passes in a row that retired an incarnation (only the recovery's thread reads and writes it). */
    private int retiredInARow;
}
