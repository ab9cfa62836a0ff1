package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetterFilter;
import dev.lazarus.deadletter.entity.RequeueJob;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Clock;
import java.util.logging.Level;
import java.util.logging.Logger;

/** A requeue job's row, each change in a transaction of its own so that progress is visible as it happens. */
@Stateless
@TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
public class RequeueJobStore {

    private static final Logger LOG = Logger.getLogger(RequeueJobStore.class.getName());

    @PersistenceContext
    EntityManager em;

    @Inject
    Clock clock;

    public RequeueJob create(DeadLetterFilter filter, int ratePerSecond, long total, String operator, String node) {
        RequeueJob job = new RequeueJob(filter, ratePerSecond, total, operator, node, clock.instant());
        em.persist(job);
        LOG.log(Level.INFO, "Requeue job {0} by {1}: {2} dead letter(s) match {3}, rate {4}/s",
                new Object[] {job.id(), operator, total, filter, ratePerSecond == 0 ? "unlimited" : ratePerSecond});
        return job;
    }

    public RequeueJob reload(long jobId) {
        return em.find(RequeueJob.class, jobId);
    }

    public void finish(long jobId, RequeueJob.State state, String error) {
        RequeueJob job = em.find(RequeueJob.class, jobId);
        job.finish(state, error, clock.instant());
        LOG.log(Level.INFO, "Requeue job {0} {1}: {2} requeued ({3} from the database), {4} skipped",
                new Object[] {jobId, state, job.requeued(), job.redispatched(), job.skipped()});
    }
}
