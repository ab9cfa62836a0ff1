package dev.lazarus.deadletter.boundary;

import dev.lazarus.deadletter.control.Retention;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.inject.Inject;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs the retention purge hourly, at minute {@code lazarus.retention.schedule-minute} (default 17).
 * Persistent: a purge missed while the server was down runs when it is back.
 */
@Singleton
public class RetentionTimer {

    private static final Logger LOG = Logger.getLogger(RetentionTimer.class.getName());

    @Inject
    Retention retention;

    @Schedule(hour = "*", minute = "${lazarus.retention.schedule-minute:17}", persistent = true,
            info = "Lazarus retention: purge long-closed dead letters")
    public void purge() {
        try {
            int purged = retention.purge();
            if (purged > 0) {
                LOG.log(Level.INFO, "Retention: purged {0} dead letter(s) closed more than {1} ago",
                        new Object[] {purged, retention.resolvedAfter()});
            }
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "Retention purge failed; the next one runs on schedule", e);
        }
    }
}
