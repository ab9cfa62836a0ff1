package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.BulkJob;
import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.platform.control.DatabaseTime;
import dev.lazarus.platform.control.Metrics;
import dev.lazarus.platform.control.AfterCommit;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * One batch of a bulk job, in a transaction of its own: the job's next items, their dead letters locked, each one
 * requeued ({@link RequeueService#requeueAll}) or closed ({@link Investigations#closeAll}) by the rules that act on a
 * single one, and the job's progress, all committed together. A dead letter that does not fit any more (closed
 * meanwhile, its run disagrees, the loop guard, purged) is skipped and the job says which and why; it never fails
 * the job.
 */
@Stateless
@RolesAllowed("operator")
public class BulkJobBatches {

    private static final Logger LOG = Logger.getLogger(BulkJobBatches.class.getName());

    @PersistenceContext
    EntityManager em;

    @Inject
    DeadLetters deadLetters;

    @Inject
    RequeueService requeueService;

    @Inject
    Investigations investigations;

    @Inject
    DatabaseTime databaseTime;

    @Inject
    AfterCommit afterCommit;

    @Inject
    Metrics metrics;

    /** What a batch did: how many it acted on (of a requeue's, how many it dispatched from the database) and what it skipped. */
    public record Outcome(int acted, int dispatched, List<String> skipped) {
    }

    /** @return how many of the job's items the batch looked at (0: the job is done) */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int next(long jobId, int max) {
        BulkJob job = em.find(BulkJob.class, jobId, LockModeType.PESSIMISTIC_WRITE);
        if (job.state() != BulkJob.State.RUNNING) {
            return 0; // finished meanwhile: marked interrupted by another node that found it silent, say
        }
        DeadLetters.Items items = deadLetters.lockNextItems(job, max);
        if (items.ids().isEmpty()) {
            return 0;
        }
        Set<Long> found = items.found().stream().map(DeadLetter::id).collect(Collectors.toSet());
        List<String> skipped = new ArrayList<>(items.ids().stream().filter(id -> !found.contains(id))
                .map(id -> id + ": no longer exists (purged by the retention)").toList());
        Outcome outcome = switch (job.action()) {
            case REQUEUE -> requeueService.requeueAll(items.found(), job.requestedBy());
            case DISCARD, RESOLVE -> investigations.closeAll(job.action(), items.found(), job.requestedBy(), job.note(), job.rootCause());
        };
        skipped.addAll(outcome.skipped());
        // stamped by the database's clock: any node judges the job's silence by it (BulkJobStore.interruptSilent)
        job.progressed(items.ids().get(items.ids().size() - 1), outcome.acted(), outcome.dispatched(), skipped, databaseTime.now());
        int handled = items.ids().size();
        afterCommit.run(() -> metrics.bulkJobProgressed(job.action().apiName(), handled));
        LOG.log(Level.INFO, "Bulk job {0}: {1} dead letter(s) {2} by {3}{4}, {5} skipped{6}",
                new Object[] {jobId, outcome.acted(), job.action().done(), job.requestedBy(),
                        job.action() == BulkJob.Action.REQUEUE ? " (" + outcome.dispatched() + " dispatched from the database)" : "",
                        skipped.size(), skipped.isEmpty() ? "" : ": " + skipped});
        return handled;
    }
}
