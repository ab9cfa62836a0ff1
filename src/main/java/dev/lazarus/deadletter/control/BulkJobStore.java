package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.BulkJob;
import dev.lazarus.deadletter.entity.RootCause;
import dev.lazarus.deadletter.entity.DeadLetterFilter;
import dev.lazarus.platform.control.DatabaseTime;
import dev.lazarus.platform.control.Locks;
import dev.lazarus.platform.control.Problem;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/** A bulk job's row, each change in a transaction of its own so that progress is visible as it happens. */
@Stateless
@TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
public class BulkJobStore {

    private static final Logger LOG = Logger.getLogger(BulkJobStore.class.getName());

    @PersistenceContext
    EntityManager em;

    @Inject
    DeadLetters deadLetters;

    /** Every stamp of a job is the database's: another node judges by it whether the job's worker is alive. */
    @Inject
    DatabaseTime databaseTime;

    /**
     * Creates a job and counts it: the dead letters it will act on are kept as its items, in the same transaction, so
     * the job and what it counted are never apart.
     *
     * @param asOf     if not null, only the dead letters that existed then (what a page counted)
     * @param expected if 0 or more, the count the caller showed: a job that would count another number is refused (409)
     *                 and nothing is kept
     */
    public BulkJob create(BulkJob.Action action, String note, DeadLetterFilter filter, int ratePerSecond, String operator, String node,
                          Instant countedAt, DeadLetters.AsOf asOf, long expected) {
        return create(action, note, null, filter, ratePerSecond, operator, node, countedAt, asOf, expected);
    }

    /** The same, for a resolve that records a root cause with each dead letter ({@code rootCause}, optional). */
    public BulkJob create(BulkJob.Action action, String note, RootCause rootCause, DeadLetterFilter filter, int ratePerSecond,
                          String operator, String node, Instant countedAt, DeadLetters.AsOf asOf, long expected) {
        BulkJob job;
        try {
            job = new BulkJob(action, note, filter, ratePerSecond, operator, node, countedAt, databaseTime.now()).withRootCause(rootCause);
        } catch (IllegalArgumentException e) {
            throw Problem.badRequest(e.getMessage()); // the callers check first; this is the entity's own guard
        }
        em.persist(job);
        em.flush(); // its id, for its items
        int items = deadLetters.keep(job, asOf);
        if (expected >= 0 && items != expected) {
            throw Problem.conflict(items + " match now, not " + expected + " as counted: some were closed meanwhile. Nothing was "
                    + action.done() + "; look at the count again");
        }
        job.counted(items);
        LOG.log(Level.INFO, "Bulk job {0} by {1}: {2} of {3} dead letter(s) matching {4}, rate {5}{6}",
                new Object[] {job.id(), operator, action.apiName(), items, filter, ratePerSecond == 0 ? "unlimited" : ratePerSecond + "/s",
                        note == null ? "" : ": " + note});
        return job;
    }

    public BulkJob reload(long jobId) {
        return em.find(BulkJob.class, jobId);
    }

    /**
     * Marks this node's jobs that were running when the server stopped as interrupted. Their rows are locked
     * without waiting: after a crash, a batch's transaction may still be in doubt and hold its job's row until
     * the transaction manager's recovery settles it; the caller tries again later instead of blocking.
     *
     * @throws jakarta.persistence.PessimisticLockException (wrapped) while such a row is still locked
     */
    public List<BulkJob> interruptLeftovers(String node) {
        List<BulkJob> jobs = em.createQuery("select j from BulkJob j where j.state = :running and j.node = :node", BulkJob.class)
                .setParameter("running", BulkJob.State.RUNNING)
                .setParameter("node", node)
                .setLockMode(LockModeType.PESSIMISTIC_WRITE)
                .setHint("jakarta.persistence.lock.timeout", 0) // NOWAIT
                .getResultList();
        for (BulkJob job : jobs) {
            finished(job, BulkJob.State.INTERRUPTED, "the server stopped while the job ran; start it again to finish", databaseTime.now());
            LOG.log(Level.WARNING, "Bulk job {0} ({1}) was interrupted by a restart after {2} of {3}",
                    new Object[] {job.id(), job.action().apiName(), job.done(), job.total()});
        }
        return jobs;
    }

    /**
     * Marks running jobs that have shown no progress for {@code silentFor} as interrupted, whichever node ran
     * them: their node died (and may never come back under its name) or is stuck. A job works in batches that
     * each commit their progress within seconds, so a long silence means no worker. Silence is measured on the
     * database's clock, which stamped the progress too: the nodes' clocks may differ by minutes. Jobs whose row is
     * locked are skipped: a batch is committing right now, so they are not silent. If the worker is alive after all,
     * its next batch finds the job no longer running and stops; nothing is done twice either way (each dead
     * letter is acted on under its own lock).
     */
    public List<BulkJob> interruptSilent(Duration silentFor) {
        Instant now = databaseTime.now();
        Instant silentSince = now.minus(silentFor);
        List<BulkJob> jobs = Locks.skippingLocked(em.createQuery("select j from BulkJob j where j.state = :running"
                        + " and j.updatedAt < :since order by j.id", BulkJob.class)
                .setParameter("running", BulkJob.State.RUNNING)
                .setParameter("since", silentSince)).getResultList();
        for (BulkJob job : jobs) {
            finished(job, BulkJob.State.INTERRUPTED, "no progress since " + job.updatedAt() + " (node " + job.node()
                    + " stopped, or its worker is stuck); start it again to finish", now);
            LOG.log(Level.WARNING, "Bulk job {0} ({1}) of node {2} showed no progress since {3} and is marked interrupted after {4}"
                    + " of {5}", new Object[] {job.id(), job.action().apiName(), job.node(), job.updatedAt(), job.done(), job.total()});
        }
        return jobs;
    }

    public void finish(long jobId, BulkJob.State state, String error) {
        BulkJob job = em.find(BulkJob.class, jobId);
        finished(job, state, error, databaseTime.now()); // a job already finished (interrupted from another node, say) stays as it is
        LOG.log(Level.INFO, "Bulk job {0} ({1}) {2}: {3} {4}{5}, {6} skipped",
                new Object[] {jobId, job.action().apiName(), job.state(), job.done(), job.action().done(),
                        job.action() == BulkJob.Action.REQUEUE ? " (" + job.redispatched() + " from the database)" : "", job.skipped()});
    }

    /** A finished job no longer needs its items: its counters say what it did, and it never goes on. */
    private void finished(BulkJob job, BulkJob.State state, String error, Instant now) {
        job.finish(state, error, now);
        em.createQuery("delete from BulkJobItem i where i.jobId = :job").setParameter("job", job.id()).executeUpdate();
    }
}
