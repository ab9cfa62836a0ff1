package dev.lazarus.platform.control;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The one way a persistent timer's work runs, and the one watchdog that stands in for it (see {@link TimerRuns} for
 * why a watchdog is needed): the sweep, the retention purge and the check for silent bulk jobs each have a persistent
 * timer that calls {@link #fired} and a non-persistent one on every node that calls {@link #watch}. Neither ever lets
 * the work's failure out: an exception would cancel a timer's later runs.
 */
@ApplicationScoped
public class WatchedTimers {

    private static final Logger LOG = Logger.getLogger(WatchedTimers.class.getName());

    @Inject
    TimerRuns timerRuns;

    @Inject
    Metrics metrics;

    /**
     * The persistent timer {@code name} fired: {@code work} runs here, and when it returns true (it ran; false: it was
     * skipped, one already running on this node) the installation's record says it finished.
     *
     * @param what the work, for the log ("the sweep")
     * @return whether it ran
     */
    public boolean fired(String name, String what, BooleanSupplier work) {
        Instant started = Instant.now();
        boolean ran;
        try {
            ran = work.getAsBoolean();
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, capitalised(what) + " failed; the next one runs on schedule", e);
            return true; // it ran, and failed: the watchdog does not run it again at once
        }
        if (ran) {
            try {
                timerRuns.finished(name, Duration.between(started, Instant.now()));
            } catch (RuntimeException e) {
                metrics.diagnosticsWriteFailed(name + "_finished");
                LOG.log(Level.WARNING, "Could not record when {0} finished: {1}", new Object[] {what, Failures.rootMessage(e)});
            }
        }
        return ran;
    }

    /**
     * A watchdog's look at the timer {@code name}: if it has not finished for {@code overdue} and this node's claim wins,
     * {@code work} runs here, as {@link #fired} runs it, and the log says why.
     *
     * @return whether it ran here
     */
    public boolean watch(String name, String what, Duration overdue, BooleanSupplier work) {
        try {
            if (!timerRuns.claimOverdue(name, overdue)) {
                return false;
            }
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "The watchdog of " + what + " could not look; it looks again at its next turn", e);
            return false;
        }
        LOG.log(Level.WARNING, "{0} has not finished for {1}: its persistent timer is not firing (its node may have died in the"
                + " middle of a firing, which leaves the timer marked as running); node {2} runs it instead",
                new Object[] {capitalised(what), overdue, TimerRuns.NODE});
        return fired(name, what, work);
    }

    private static String capitalised(String what) {
        return what.isEmpty() ? what : Character.toUpperCase(what.charAt(0)) + what.substring(1);
    }
}
