package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.BulkJob;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.Asynchronous;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Works through a bulk job in the background, batch by batch ({@link BulkJobBatches}), holding to its rate and
 * stopping when asked, whatever its action. Runs with the identity of the operator who started it.
 */
@Stateless
@RolesAllowed("operator")
public class BulkJobRunner {

    private static final Logger LOG = Logger.getLogger(BulkJobRunner.class.getName());

    @Inject
    BulkJobStore store;

    @Inject
    BulkJobBatches batches;

    @Asynchronous
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public void run(long jobId) {
        try {
            while (true) {
                long batchStarted = System.nanoTime();
                BulkJob job = store.reload(jobId);
                if (job.cancelRequested()) {
                    store.finish(jobId, BulkJob.State.CANCELLED, null);
                    return;
                }
                int max = job.ratePerSecond() == 0 ? BulkJobs.BATCH : Math.min(BulkJobs.BATCH, job.ratePerSecond());
                int done = batches.next(jobId, max);
                if (done == 0) {
                    store.finish(jobId, BulkJob.State.COMPLETED, null);
                    return;
                }
                if (job.ratePerSecond() > 0) {
                    long dueNanos = batchStarted + done * 1_000_000_000L / job.ratePerSecond();
                    long waitMillis = (dueNanos - System.nanoTime()) / 1_000_000;
                    if (waitMillis > 0) {
                        Thread.sleep(waitMillis); // the rate limit: this job's only deliberate pause
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            store.finish(jobId, BulkJob.State.INTERRUPTED, "the worker thread was interrupted");
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "Bulk job " + jobId + " failed", e);
            store.finish(jobId, BulkJob.State.FAILED, String.valueOf(e));
        }
    }
}
