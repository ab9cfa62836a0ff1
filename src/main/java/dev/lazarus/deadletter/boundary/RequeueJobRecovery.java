package dev.lazarus.deadletter.boundary;

import dev.lazarus.deadletter.control.BulkJobStore;
import dev.lazarus.deadletter.control.BulkJobs;
import dev.lazarus.platform.control.TimerRuns;
import dev.lazarus.platform.control.WatchedTimers;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Schedule;
import jakarta.ejb.EJBException;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Finds bulk jobs (requeue, discard, resolve) whose worker is gone. After a start-up, it marks this server's jobs that
 * were running when it stopped as interrupted; and every minute, on whichever node the persistent timer fires, it
 * marks running jobs of any node that have made no progress for {@code lazarus.requeue.job-silent-after} (2 minutes,
 * measured on the database's clock, which stamps their progress too) as interrupted, so the jobs of a node that died
 * and never comes back (or comes back under another name) are not left {@code RUNNING} for ever. What they did is
 * committed and counted; what they did not is still open, so starting the same filter again finishes the work
 * without acting on anything twice.
 *
 * <p>It keeps the name it had when bulk jobs only requeued: a persistent timer is known by its bean's name, and a
 * renamed bean would leave the installation's existing timer behind.
 *
 * <p>It never holds up the deployment: it runs on a timer right after start-up, and if a job's row is still
 * locked (the server died while a batch was being committed, and that transaction stays in doubt until the
 * transaction manager's recovery commits or rolls it back) it tries again every {@value #RETRY_SECONDS} seconds.
 */
@Singleton
@Startup
@DependsOn("SchemaMigration")
public class RequeueJobRecovery {

    private static final Logger LOG = Logger.getLogger(RequeueJobRecovery.class.getName());
    static final int RETRY_SECONDS = 10;

    @Resource
    TimerService timers;

    @Inject
    BulkJobStore store;

    @Inject
    @ConfigProperty(name = "lazarus.requeue.job-silent-after", defaultValue = "PT2M")
    Duration silentAfter;

    @Inject
    WatchedTimers watchedTimers;

    /** The check's name in {@link TimerRuns}. */
    public static final String SILENT_CHECK = "silent-requeue-jobs";
    private static final Duration WATCHDOG_OVERDUE = Duration.ofMinutes(5);

    @Schedule(hour = "*", minute = "*", second = "${lazarus.requeue.silent-check-second:45}", persistent = true,
            info = "Lazarus: interrupt requeue jobs that stopped making progress")
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    void interruptSilentJobs() {
        watchedTimers.fired(SILENT_CHECK, "the check for silent bulk jobs", this::checkNow);
    }

    /** On every node (see {@link TimerRuns}): checks itself if the installation's check has not run for five minutes. */
    @Schedule(hour = "*", minute = "*", second = "50", persistent = false, info = "Lazarus watchdog of the silent requeue job check")
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    void watchSilentJobCheck() {
        watchedTimers.watch(SILENT_CHECK, "the check for silent bulk jobs", WATCHDOG_OVERDUE, this::checkNow);
    }

    private boolean checkNow() {
        store.interruptSilent(silentAfter); // judged by the database's clock: the nodes' may differ
        return true;
    }

    @PostConstruct
    void scheduleCheck() {
        timers.createSingleActionTimer(1, new TimerConfig("interrupted bulk jobs", false));
    }

    @Timeout
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    void interruptLeftovers() {
        try {
            store.interruptLeftovers(BulkJobs.NODE);
        } catch (EJBException e) {
            LOG.log(Level.INFO, "A bulk job of this node is still locked, probably by a batch whose transaction was in doubt"
                    + " when the server stopped and that the transaction manager's recovery has not settled yet; checking again in {0} s ({1})",
                    new Object[] {RETRY_SECONDS, e.getCause() != null ? e.getCause() : e});
            timers.createSingleActionTimer(RETRY_SECONDS * 1000L, new TimerConfig("interrupted bulk jobs", false));
        }
    }
}
