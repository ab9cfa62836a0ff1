package dev.lazarus.deadletter.boundary;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.deadletter.entity.BulkJob;
import dev.lazarus.deadletter.entity.DeadLetterFilter;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.time.Instant;

/**
 * A bulk job and its progress, as {@code /api/bulk-jobs} and {@code /api/requeue-jobs} show it. {@code action} is
 * {@code requeue}, {@code discard} or {@code resolve}, {@code note} a discard's or a resolve's why, {@code rootCause} a
 * resolve's root cause (if it gave one); {@code done} is how
 * many it acted on, {@code requeued} the same for a requeue (0 for the others: what a requeue job always showed);
 * {@code percent} is of the dead letters it counted at the start; {@code filter} is exactly what it selects (open
 * dead letters only), {@code skippedDetail} the first ones it passed over and why.
 */
public record BulkJobView(long id, String action, String note, String rootCause, String state, String requestedBy, JsonObject filter, int ratePerSecond,
                          long total, long done, long requeued, long redispatched, long skipped, String skippedDetail, int percent,
                          boolean cancelRequested, String lastError, Instant createdAt, Instant updatedAt, Instant finishedAt) {

    static BulkJobView of(BulkJob job) {
        return new BulkJobView(job.id(), job.action().apiName(), job.note(), job.rootCause() == null ? null : job.rootCause().name(),
                job.state().name(), job.requestedBy(), filterOf(job.filter()),
                job.ratePerSecond(), job.total(), job.done(), job.action() == BulkJob.Action.REQUEUE ? job.done() : 0, job.redispatched(),
                job.skipped(), job.skippedDetail(), job.percent(), job.cancelRequested(), job.lastError(), job.createdAt(),
                job.updatedAt(), job.finishedAt());
    }

    /** The filter with the names the API takes; only what is set. */
    static JsonObject filterOf(DeadLetterFilter filter) {
        JsonObjectBuilder json = JSON.createObjectBuilder();
        add(json, "reason", filter.reason());
        add(json, "status", filter.status());
        add(json, "runId", filter.runId());
        add(json, "pipeline", filter.pipeline());
        add(json, "step", filter.step());
        add(json, "from", filter.from());
        add(json, "to", filter.to());
        add(json, "error", filter.errorContains());
        add(json, "cause", filter.cause());
        return json.build();
    }

    private static void add(JsonObjectBuilder json, String name, Object value) {
        if (value != null) {
            json.add(name, value.toString());
        }
    }
}
