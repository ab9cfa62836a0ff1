package dev.lazarus.deadletter.boundary;

import dev.lazarus.deadletter.control.RequeueJobStore;
import dev.lazarus.deadletter.control.RequeueJobs;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.DependsOn;
import jakarta.ejb.EJBException;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * After a start-up, marks this server's jobs that were running when it stopped as interrupted. What they did is
 * committed and counted; what they did not is still open, so starting the same filter again finishes the work
 * without requeueing anything twice.
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
    RequeueJobStore store;

    @PostConstruct
    void scheduleCheck() {
        timers.createSingleActionTimer(1, new TimerConfig("interrupted requeue jobs", false));
    }

    @Timeout
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    void interruptLeftovers() {
        try {
            store.interruptLeftovers(RequeueJobs.NODE);
        } catch (EJBException e) {
            LOG.log(Level.INFO, "A requeue job of this node is still locked, probably by a batch whose transaction was in doubt"
                    + " when the server stopped and that the transaction manager's recovery has not settled yet; checking again in {0} s ({1})",
                    new Object[] {RETRY_SECONDS, e.getCause() != null ? e.getCause() : e});
            timers.createSingleActionTimer(RETRY_SECONDS * 1000L, new TimerConfig("interrupted requeue jobs", false));
        }
    }
}
