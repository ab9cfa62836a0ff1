package dev.lazarus.deadletter.boundary;

import dev.lazarus.deadletter.entity.RequeueJob;
import java.time.Instant;

/** A bulk requeue job and its progress. {@code percent} is of the dead letters that matched at the start. */
public record RequeueJobView(long id, String state, String requestedBy, int ratePerSecond, long total, long requeued,
                             long redispatched, long skipped, int percent, boolean cancelRequested, String lastError,
                             Instant createdAt, Instant updatedAt, Instant finishedAt) {

    static RequeueJobView of(RequeueJob job) {
        long handled = job.requeued() + job.skipped();
        int percent = job.total() == 0 ? 100 : (int) Math.min(100, handled * 100 / job.total());
        return new RequeueJobView(job.id(), job.state().name(), job.requestedBy(), job.ratePerSecond(), job.total(),
                job.requeued(), job.redispatched(), job.skipped(), percent, job.cancelRequested(), job.lastError(),
                job.createdAt(), job.updatedAt(), job.finishedAt());
    }
}
