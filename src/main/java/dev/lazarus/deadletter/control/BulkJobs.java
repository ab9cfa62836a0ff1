package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.BulkJob;
import dev.lazarus.deadletter.entity.RootCause;
import dev.lazarus.deadletter.entity.DeadLetterFilter;
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
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * Bulk jobs, as operators use them: a dry run that counts what a filter would requeue, discard or resolve, then a
 * job that works through exactly that at a chosen rate in the background ({@link BulkJobRunner}), with live progress
 * and a cancel. Each batch is one transaction ({@link BulkJobBatches}), so a job killed with its server leaves every
 * dead letter either done once or still open, and says it was interrupted.
 */
@Stateless
@RolesAllowed("operator")
public class BulkJobs {

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
    BulkJobStore store;

    @Inject
    BulkJobRunner runner;

    @Inject
    Clock clock;

    /** A job's own stamps are the database's (see {@link BulkJob}). */
    @Inject
    DatabaseTime databaseTime;

    @Resource
    SessionContext session;

    /** What exists now, as a page that counts and later starts a job "as counted" bounds it. */
    @RolesAllowed({"viewer", "operator"})
    public DeadLetters.AsOf now() {
        return deadLetters.now(clock.instant());
    }

    /** How many dead letters a job of {@code action} and this filter would act on now. */
    @RolesAllowed({"viewer", "operator"})
    public long dryRun(BulkJob.Action action, DeadLetterFilter filter) {
        return dryRun(action, filter, null);
    }

    /** The same, of those that existed {@code asOf} (if not null): what a page counted. */
    @RolesAllowed({"viewer", "operator"})
    public long dryRun(BulkJob.Action action, DeadLetterFilter filter, DeadLetters.AsOf asOf) {
        if (filter.status() != null && !filter.status().isOpen()) {
            return 0; // closed dead letters are never selected
        }
        return deadLetters.countFor(action, filter, asOf);
    }

    /**
     * Starts a job for what the filter matches now, and only that: dead letters recorded after it was counted are left
     * alone. Its work goes on after this call returns.
     *
     * @param note why, for a discard or a resolve (required); a requeue takes none
     */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public BulkJob start(BulkJob.Action action, DeadLetterFilter filter, int ratePerSecond, String note) {
        return start(action, filter, ratePerSecond, note, null, null, -1);
    }

    /** The same, with a resolve's root cause ({@code rootCause}: a {@link RootCause} name, optional; refused for other actions). */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public BulkJob start(BulkJob.Action action, DeadLetterFilter filter, int ratePerSecond, String note, String rootCause) {
        return start(action, filter, ratePerSecond, note, rootCause, null, -1);
    }

    /**
     * Starts a job for exactly what a page counted: the dead letters of the filter that existed {@code asOf}, which
     * must still be {@code counted} (a 409 otherwise, and nothing is done: the page counts again).
     */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public BulkJob startAsCounted(BulkJob.Action action, DeadLetterFilter filter, int ratePerSecond, String note,
                                  DeadLetters.AsOf asOf, long counted) {
        return start(action, filter, ratePerSecond, note, null, asOf, counted);
    }

    /** The same, with a resolve's root cause (a {@link RootCause} name, optional). */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public BulkJob startAsCounted(BulkJob.Action action, DeadLetterFilter filter, int ratePerSecond, String note, String rootCause,
                                  DeadLetters.AsOf asOf, long counted) {
        return start(action, filter, ratePerSecond, note, rootCause, asOf, counted);
    }

    private BulkJob start(BulkJob.Action action, DeadLetterFilter filter, int ratePerSecond, String note, String rootCause,
                          DeadLetters.AsOf asOf, long counted) {
        String why = checkedNote(action, note);
        RootCause cause = Investigations.checkedRootCause(rootCause);
        if (cause != null && action != BulkJob.Action.RESOLVE) {
            throw Problem.badRequest("only a resolve records a root cause; a bulk " + action.apiName() + " takes no 'rootCause'");
        }
        if (ratePerSecond < 0 || ratePerSecond > MAX_RATE) {
            throw Problem.badRequest(RATE_RULE);
        }
        if (filter.status() != null && !filter.status().isOpen()) {
            throw Problem.unprocessable("only open dead letters can be " + action.done() + "; status " + filter.status()
                    + " is closed (use PENDING or INVESTIGATING, or leave it out)");
        }
        BulkJob job = store.create(action, why, cause, filter, ratePerSecond, session.getCallerPrincipal().getName(), NODE, clock.instant(),
                asOf, counted);
        runner.run(job.id());
        return job;
    }

    /**
     * The note of a discard or a resolve, checked as every note is ({@link Investigations#requiredNote}: required, one
     * limit); a requeue's is refused, not ignored: its audit entries have no place for it, and a note the operator wrote
     * should not vanish.
     */
    private static String checkedNote(BulkJob.Action action, String note) {
        if (action.closes()) {
            return Investigations.requiredNote(note, "say why the dead letters are " + action.done());
        }
        if (note != null) {
            throw Problem.badRequest("a requeue takes no 'note' (each dead letter's audit entry says how its run came back);"
                    + " leave it out, or say why in the dead letters' notes");
        }
        return null;
    }

    public BulkJob cancel(long id) {
        // locked: waits for a batch in progress to commit its counters rather than racing it
        BulkJob job = em.find(BulkJob.class, id, LockModeType.PESSIMISTIC_WRITE);
        if (job == null) {
            throw Problem.notFound("no bulk job " + id);
        }
        try {
            job.requestCancel(databaseTime.now());
        } catch (IllegalStateException e) {
            throw Problem.conflict(e.getMessage());
        }
        return job;
    }

    @RolesAllowed({"viewer", "operator"})
    public Optional<BulkJob> find(long id) {
        return Optional.ofNullable(em.find(BulkJob.class, id));
    }

    /** The newest jobs, of one action or (null) of all. */
    @RolesAllowed({"viewer", "operator"})
    public List<BulkJob> recent(BulkJob.Action action, int limit) {
        if (action == null) {
            return em.createQuery("select j from BulkJob j order by j.id desc", BulkJob.class).setMaxResults(limit).getResultList();
        }
        return em.createQuery("select j from BulkJob j where j.action = :action order by j.id desc", BulkJob.class)
                .setParameter("action", action).setMaxResults(limit).getResultList();
    }
}
