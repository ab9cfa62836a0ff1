package dev.lazarus.pipeline.boundary;

import dev.lazarus.pipeline.control.Dispatches;
import dev.lazarus.pipeline.control.OwedDispatches;
import dev.lazarus.pipeline.control.StepDispatcher;
import dev.lazarus.platform.control.Failures;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Keeps the promise of {@link Dispatches}: every few seconds, on every node, it says that this node is alive, and sends
 * again the dispatches of node incarnations that are gone: a node killed between a commit and its send (another node
 * takes over once it has been silent for {@code lazarus.dispatch.node-silent-after}; the node itself as soon as it
 * starts again), and this node's own after a send the broker did not take (see {@link Dispatches#sendCommitted}).
 * Dispatches are taken over in batches, each committed (the runs now name this node) before it is sent; if the broker
 * refuses, this node retires its incarnation in turn and the next pass tries again. Safe on every node at once: a run
 * is taken over by one of them (its row is locked), and a dispatch sent twice reaches its queue once.
 */
@Singleton
@Startup
@DependsOn("SchemaMigration")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class DispatchRecovery {

    private static final Logger LOG = Logger.getLogger(DispatchRecovery.class.getName());
    private static final int BATCH = 500;

    @Inject
    Dispatches dispatches;

    @Inject
    OwedDispatches owed;

    /** How long a node may be silent before another takes over the dispatches it owes (it says it is alive every 5 s). */
    @Inject
    @ConfigProperty(name = "lazarus.dispatch.node-silent-after", defaultValue = "PT20S")
    Duration silentAfter;

    private final AtomicBoolean running = new AtomicBoolean();

    /** Passes that failed in a row: the first is a warning, the ones after it (an outage that lasts) only at FINE. */
    private int failedInARow;

    @PostConstruct
    void announce() {
        try {
            owed.seen(dispatches.incarnation(), null);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not say that this node is alive (the database is away?); the next pass tries again: {0}",
                    Failures.rootMessage(e));
        }
    }

    @Schedule(hour = "*", minute = "*", second = "*/5", persistent = false, info = "Lazarus: dispatches owed by nodes that are gone")
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public void pass() {
        if (!running.compareAndSet(false, true)) {
            return; // the previous pass is still sending
        }
        try {
            String retired = dispatches.retireIfSendFailed();
            String current = dispatches.incarnation();
            owed.seen(current, retired);
            for (String gone : owed.gone(current, silentAfter)) {
                if (!recover(gone, current)) {
                    return;
                }
            }
            owed.forgetIdle(current);
            if (failedInARow > 0) {
                LOG.log(Level.INFO, "The pass over owed dispatches works again, after {0} that failed", failedInARow);
                failedInARow = 0;
            }
        } catch (RuntimeException e) {
            LOG.log(failedInARow++ == 0 ? Level.WARNING : Level.FINE, "The pass over owed dispatches failed; the next one runs in"
                    + " 5 s: {0}", Failures.rootMessage(e));
        } finally {
            running.set(false);
        }
    }

    /** Sends what {@code gone} owes, a batch at a time; false if the broker did not take a batch (try again next pass). */
    private boolean recover(String gone, String current) {
        int sent = 0;
        for (List<StepDispatcher.Dispatch> batch = owed.takeOver(gone, current, BATCH); !batch.isEmpty();
             batch = owed.takeOver(gone, current, BATCH)) {
            if (!dispatches.sendCommitted(batch)) {
                return false;
            }
            sent += batch.size();
        }
        if (sent > 0) {
            LOG.log(Level.WARNING, "Sent {0} dispatch(es) again that {1} recorded and may not have sent (it is gone: stopped mid-send,"
                    + " or its broker did not take them); the broker drops those it already had", new Object[] {sent, gone});
        }
        return true;
    }
}
