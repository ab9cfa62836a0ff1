package dev.lazarus.deadletter.boundary;

import dev.lazarus.deadletter.control.RequeueJobs;
import dev.lazarus.deadletter.entity.RequeueJob;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Instant;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * At start-up, marks this server's jobs that were running when it stopped as interrupted. What they did is
 * committed and counted; what they did not is still open, so starting the same filter again finishes the
 * work without requeueing anything twice.
 */
@Singleton
@Startup
@DependsOn("SchemaMigration")
public class RequeueJobRecovery {

    private static final Logger LOG = Logger.getLogger(RequeueJobRecovery.class.getName());

    @PersistenceContext
    EntityManager em;

    @PostConstruct
    void interruptLeftovers() {
        for (RequeueJob job : em.createQuery("select j from RequeueJob j where j.state = :running and j.node = :node", RequeueJob.class)
                .setParameter("running", RequeueJob.State.RUNNING).setParameter("node", RequeueJobs.NODE).getResultList()) {
            job.finish(RequeueJob.State.INTERRUPTED, "the server stopped while the job ran; start it again to finish", Instant.now());
            LOG.log(Level.WARNING, "Requeue job {0} was interrupted by a restart after {1} of {2}",
                    new Object[] {job.id(), job.requeued(), job.total()});
        }
    }
}
