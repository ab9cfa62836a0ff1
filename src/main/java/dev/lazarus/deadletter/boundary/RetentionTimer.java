package dev.lazarus.deadletter.boundary;

import dev.lazarus.deadletter.control.Retention;
import dev.lazarus.platform.control.TimerRuns;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Runs the retention purge hourly, at minute {@code lazarus.retention.schedule-minute} (default 17).
 * Persistent: a purge missed while the server was down runs when it is back; on several nodes each firing
 * runs on one, and a watchdog on every node takes over if the timer stops firing (see {@link TimerRuns}).
 */
@Singleton
public class RetentionTimer {

    private static final Logger LOG = Logger.getLogger(RetentionTimer.class.getName());

    /** The purge's name in {@link TimerRuns}. */
    public static final String NAME = "retention";

    @Inject
    Retention retention;

    @Inject
    TimerRuns timerRuns;

    @Inject
    @ConfigProperty(name = "lazarus.retention.overdue-after", defaultValue = "PT2H")
    Duration overdueAfter;

    /** On every node (see {@link TimerRuns}): purges if the hourly purge has not finished for two hours. */
    @Schedule(hour = "*", minute = "*/10", persistent = false, info = "Lazarus retention watchdog")
    public void watch() {
        try {
            if (timerRuns.claimOverdue(NAME, overdueAfter)) {
                LOG.log(Level.WARNING, "The retention purge has not finished for {0}: its persistent timer is not firing;"
                        + " node {1} purges instead", new Object[] {overdueAfter, TimerRuns.NODE});
                purge();
            }
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "The retention watchdog failed; it looks again in ten minutes", e);
        }
    }

    @Schedule(hour = "*", minute = "${lazarus.retention.schedule-minute:17}", persistent = true,
            info = "Lazarus retention: purge long-closed dead letters")
    public void purge() {
        try {
            Instant started = Instant.now();
            int purged = retention.purge();
            timerRuns.finished(NAME, Duration.between(started, Instant.now()));
            if (purged > 0) {
                LOG.log(Level.INFO, "Retention: purged {0} dead letter(s) closed more than {1} ago",
                        new Object[] {purged, retention.resolvedAfter()});
            }
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "Retention purge failed; the next one runs on schedule", e);
        }
    }
}
