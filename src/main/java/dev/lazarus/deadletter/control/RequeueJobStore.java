package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetterFilter;
import dev.lazarus.deadletter.entity.RequeueJob;
import dev.lazarus.platform.control.Locks;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import dev.lazarus.platform.control.DatabaseTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/** A requeue job's row, each change in a transaction of its own so that progress is visible as it happens. */
@Stateless
@TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
public class RequeueJobStore {

    private static final Logger LOG = Logger.getLogger(RequeueJobStore.class.getName());

    @PersistenceContext
    EntityManager em;

    /** Every stamp of a job is the database's: another node judges by it whether the job's worker is alive. */
    @Inject
    DatabaseTime databaseTime;

    public RequeueJob create(DeadLetterFilter filter, int ratePerSecond, long total, long maxDeadLetterId, String operator, String node,
                             Instant countedAt) {
        RequeueJob job = new RequeueJob(filter, ratePerSecond, total, maxDeadLetterId, operator, node, countedAt,
                databaseTime.now());
        em.persist(job);
        LOG.log(Level.INFO, "Requeue job {0} by {1}: {2} dead letter(s) match {3}, rate {4}/s",
                new Object[] {job.id(), operator, total, filter, ratePerSecond == 0 ? "unlimited" : ratePerSecond});
        return job;
    }

    public RequeueJob reload(long jobId) {
        return em.find(RequeueJob.class, jobId);
    }

    /**
     * Marks this node's jobs that were running when the server stopped as interrupted. Their rows are locked
     * without waiting: after a crash, a batch's transaction may still be in doubt and hold its job's row until
     * the transaction manager's recovery settles it; the caller tries again later instead of blocking.
     *
     * @throws jakarta.persistence.PessimisticLockException (wrapped) while such a row is still locked
     */
    public List<RequeueJob> interruptLeftovers(String node) {
        List<RequeueJob> jobs = em.createQuery("select j from RequeueJob j where j.state = :running and j.node = :node", RequeueJob.class)
                .setParameter("running", RequeueJob.State.RUNNING)
                .setParameter("node", node)
                .setLockMode(LockModeType.PESSIMISTIC_WRITE)
                .setHint("jakarta.persistence.lock.timeout", 0) // NOWAIT
                .getResultList();
        for (RequeueJob job : jobs) {
            job.finish(RequeueJob.State.INTERRUPTED, "the server stopped while the job ran; start it again to finish",
                    databaseTime.now());
            LOG.log(Level.WARNING, "Requeue job {0} was interrupted by a restart after {1} of {2}",
                    new Object[] {job.id(), job.requeued(), job.total()});
        }
        return jobs;
    }

    /**
     * Marks running jobs that have shown no progress for {@code silentFor} as interrupted, whichever node ran
     * them: their node died (and may never come back under its name) or is stuck. A job works in batches that
     * each commit their progress within seconds, so a long silence means no worker. Silence is measured on the
     * database's clock, which stamped the progress too: the nodes' clocks may differ by minutes. Jobs whose row is
     * locked are skipped: a batch is committing right now, so they are not silent. If the worker is alive after all,
     * its next batch finds the job no longer running and stops; nothing is requeued twice either way (each dead
     * letter is requeued under its own lock).
     */
    public List<RequeueJob> interruptSilent(Duration silentFor) {
        Instant now = databaseTime.now();
        Instant silentSince = now.minus(silentFor);
        List<RequeueJob> jobs = Locks.skippingLocked(em.createQuery("select j from RequeueJob j where j.state = :running"
                        + " and j.updatedAt < :since order by j.id", RequeueJob.class)
                .setParameter("running", RequeueJob.State.RUNNING)
                .setParameter("since", silentSince)).getResultList();
        for (RequeueJob job : jobs) {
            job.finish(RequeueJob.State.INTERRUPTED, "no progress since " + job.updatedAt() + " (node " + job.node()
                    + " stopped, or its worker is stuck); start it again to finish", now);
            LOG.log(Level.WARNING, "Requeue job {0} of node {1} showed no progress since {2} and is marked interrupted after {3}"
                    + " of {4}", new Object[] {job.id(), job.node(), job.updatedAt(), job.requeued(), job.total()});
        }
        return jobs;
    }

    public void finish(long jobId, RequeueJob.State state, String error) {
        RequeueJob job = em.find(RequeueJob.class, jobId);
        job.finish(state, error, databaseTime.now()); // a job already finished (interrupted from another node, say) stays as it is
        LOG.log(Level.INFO, "Requeue job {0} {1}: {2} requeued ({3} from the database), {4} skipped",
                new Object[] {jobId, job.state(), job.requeued(), job.redispatched(), job.skipped()});
    }
}
