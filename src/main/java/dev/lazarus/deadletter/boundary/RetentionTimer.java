package dev.lazarus.deadletter.boundary;

import dev.lazarus.deadletter.control.Retention;
import dev.lazarus.platform.control.TimerRuns;
import dev.lazarus.platform.control.WatchedTimers;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.inject.Inject;
import java.time.Duration;
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
    WatchedTimers timers;

    @Inject
    @ConfigProperty(name = "lazarus.retention.overdue-after", defaultValue = "PT2H")
    Duration overdueAfter;

    /** On every node (see {@link TimerRuns}): purges if the hourly purge has not finished for two hours. */
    @Schedule(hour = "*", minute = "*/10", persistent = false, info = "Lazarus retention watchdog")
    public void watch() {
        timers.watch(NAME, "the retention purge", overdueAfter, this::purgeNow);
    }

    @Schedule(hour = "*", minute = "${lazarus.retention.schedule-minute:17}", persistent = true,
            info = "Lazarus retention: purge long-closed dead letters")
    public void purge() {
        timers.fired(NAME, "the retention purge", this::purgeNow);
    }

    private boolean purgeNow() {
        int events = retention.purgeEvents();
        if (events > 0) {
            LOG.log(Level.INFO, "Retention: purged {0} event(s) recorded more than {1} ago", new Object[] {events, retention.eventsKeptFor()});
        }
        int purged = retention.purge();
        if (purged > 0) {
            LOG.log(Level.INFO, "Retention: purged {0} dead letter(s) closed more than {1} ago", new Object[] {purged, retention.resolvedAfter()});
        }
        return true;
    }
}
