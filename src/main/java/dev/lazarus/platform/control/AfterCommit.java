package dev.lazarus.platform.control;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs what reports a change (a metric, a log line) only once the change is committed, so that a rolled-back
 * transaction never counts or logs something that did not happen: a step retried after a crash, a sweep that lost
 * a race, a requeue refused at commit. What it runs must not fail the work it reports on, so its failures are
 * logged and dropped.
 */
@ApplicationScoped
public class AfterCommit {

    private static final Logger LOG = Logger.getLogger(AfterCommit.class.getName());

    @Resource
    TransactionSynchronizationRegistry transactions;

    /** Runs {@code report} after the current transaction commits (not at all if it rolls back), or now if there is none. */
    public void run(Runnable report) {
        if (transactions.getTransactionKey() == null) {
            runQuietly(report);
            return;
        }
        int status = transactions.getTransactionStatus();
        if (status == Status.STATUS_MARKED_ROLLBACK || status == Status.STATUS_ROLLEDBACK || status == Status.STATUS_ROLLING_BACK) {
            return; // it will not have happened
        }
        try {
            // also while the transaction flushes before it completes (where entity listeners mostly run)
            transactions.registerInterposedSynchronization(new Synchronization() {
                @Override
                public void beforeCompletion() {
                    // nothing: only the outcome matters
                }

                @Override
                public void afterCompletion(int outcome) {
                    if (outcome == Status.STATUS_COMMITTED) {
                        runQuietly(report);
                    }
                }
            });
        } catch (IllegalStateException tooLate) {
            if (status == Status.STATUS_COMMITTED || status == Status.STATUS_COMMITTING) {
                runQuietly(report);
            } else {
                LOG.log(Level.WARNING, "A change could not be reported (transaction status {0}): {1}", new Object[] {status, tooLate});
            }
        }
    }

    private static void runQuietly(Runnable report) {
        try {
            report.run();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not report a committed change: {0}", String.valueOf(e));
        }
    }
}
