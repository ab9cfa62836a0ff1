package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetterFilter;
import dev.lazarus.deadletter.entity.RequeueJob;
import dev.lazarus.platform.control.DatabaseTime;
import dev.lazarus.platform.control.Problem;
import jakarta.annotation.Resource;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Bulk requeue, as operators use it: a dry run that counts what a filter would bring back, then a job that
 * works through it at a chosen rate in the background ({@link RequeueJobRunner}), with live progress and a
 * cancel. Each batch is one transaction (see {@link RequeueService#requeueBatch}), so a job killed with its
 * server leaves every dead letter either requeued once or still open, and says it was interrupted.
 */
@Stateless
@RolesAllowed("operator")
public class RequeueJobs {

    /** The most a job does in one transaction. */
    static final int BATCH = 500;

    /** The fastest rate a job may be given, per second (0 means as fast as it goes). */
    public static final int MAX_RATE = 100_000;

    /** What a rate must be, as a refusal says it. */
    public static final String RATE_RULE = "'ratePerSecond' must be a whole number from 0 (unlimited) to " + MAX_RATE;

    /** The server's node name: which jobs are this server's to mark interrupted after a restart. */
    public static final String NODE = System.getProperty("jboss.node.name", "local");

    @PersistenceContext
    EntityManager em;

    @Inject
    DeadLetters deadLetters;

    @Inject
    RequeueJobStore store;

    @Inject
    RequeueJobRunner runner;

    @Inject
    Clock clock;

    /** A job's own stamps are the database's (see {@link RequeueJob}). */
    @Inject
    DatabaseTime databaseTime;

    @Resource
    SessionContext session;

    @RolesAllowed({"viewer", "operator"})
    public long dryRun(DeadLetterFilter filter) {
        if (filter.status() != null && !filter.status().isOpen()) {
            return 0; // closed dead letters are never requeued
        }
        return deadLetters.countRequeueable(filter);
    }

    /**
     * Starts a job for what the filter matches now, and only that: dead letters recorded after it was counted
     * are left alone. Its work goes on after this call returns.
     */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public RequeueJob start(DeadLetterFilter filter, int ratePerSecond) {
        if (ratePerSecond < 0 || ratePerSecond > MAX_RATE) {
            throw Problem.badRequest(RATE_RULE);
        }
        if (filter.status() != null && !filter.status().isOpen()) {
            throw Problem.unprocessable("only open dead letters can be requeued; status " + filter.status()
                    + " is closed (use PENDING or INVESTIGATING, or leave it out)");
        }
        long newest = deadLetters.newestId();
        Instant asOf = clock.instant(); // the job selects up to the newest id and recorded no later than this
        RequeueJob job = store.create(filter, ratePerSecond, deadLetters.countRequeueable(filter, newest, asOf), newest,
                session.getCallerPrincipal().getName(), NODE, asOf);
        runner.run(job.id());
        return job;
    }

    public RequeueJob cancel(long id) {
        // locked: waits for a batch in progress to commit its counters rather than racing it
        RequeueJob job = em.find(RequeueJob.class, id, jakarta.persistence.LockModeType.PESSIMISTIC_WRITE);
        if (job == null) {
            throw Problem.notFound("no requeue job " + id);
        }
        try {
            job.requestCancel(databaseTime.now());
        } catch (IllegalStateException e) {
            throw Problem.conflict(e.getMessage());
        }
        return job;
    }

    @RolesAllowed({"viewer", "operator"})
    public Optional<RequeueJob> find(long id) {
        return Optional.ofNullable(em.find(RequeueJob.class, id));
    }

    @RolesAllowed({"viewer", "operator"})
    public List<RequeueJob> recent(int limit) {
        return em.createQuery("select j from RequeueJob j order by j.id desc", RequeueJob.class).setMaxResults(limit).getResultList();
    }
}
