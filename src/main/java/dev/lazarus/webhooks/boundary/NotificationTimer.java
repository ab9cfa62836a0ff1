package dev.lazarus.webhooks.boundary;

import dev.lazarus.webhooks.control.Notifications;
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
 * Every 2 s on every node: gathers new events into the webhooks' windows and delivers the windows that are due
 * ({@link Notifications}). Not persistent: each pass takes only rows no other node holds, so every node may run it, and
 * a node that dies leaves its work to the others' next pass. Its failure is logged; the next pass tries again.
 */
@Singleton
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class NotificationTimer {

    private static final Logger LOG = Logger.getLogger(NotificationTimer.class.getName());

    @Inject
    Notifications notifications;

    private final AtomicBoolean running = new AtomicBoolean();

    @Schedule(hour = "*", minute = "*", second = "*/2", persistent = false, info = "Lazarus webhooks: gather and deliver")
    public void pass() {
        if (!running.compareAndSet(false, true)) {
            return;
        }
        try {
            while (notifications.gather() == Notifications.BATCH_SIZE) {
                // an outage's burst: take it all before flushing
            }
            notifications.flush();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Webhooks: a pass failed, the next one tries again: {0}", String.valueOf(e));
        } finally {
            running.set(false);
        }
    }
}
