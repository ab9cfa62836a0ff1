package dev.lazarus.sweep.boundary;

import dev.lazarus.sweep.control.Sweeps;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The persistent timer that sweeps. Its rhythm is configuration: the seconds field of the schedule,
 * {@code lazarus.sweep.schedule-second} (default every 30 s). Persistent, so a sweep missed while the
 * server was down runs when it is back. A sweep that would overlap the previous one on this node is
 * skipped; sweeps on other nodes are safe (see {@link Sweeps}).
 */
@Singleton
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class StaleRunSweeper {

    private static final Logger LOG = Logger.getLogger(StaleRunSweeper.class.getName());

    @Inject
    Sweeps sweeps;

    private final AtomicBoolean sweeping = new AtomicBoolean();

    @Schedule(hour = "*", minute = "*", second = "${lazarus.sweep.schedule-second:*/30}", persistent = true,
            info = "Lazarus sweep: stale runs and dead-letter queue reconciliation")
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public void sweep() {
        if (!sweeping.compareAndSet(false, true)) {
            LOG.fine("Previous sweep still running; skipped");
            return;
        }
        try {
            sweeps.sweep();
        } catch (RuntimeException e) {
            // never let an exception cancel a persistent timer's next runs; say it loudly instead
            LOG.log(Level.SEVERE, "Sweep failed; the next one runs on schedule", e);
        } finally {
            sweeping.set(false);
        }
    }
}
