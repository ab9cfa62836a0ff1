package dev.lazarus.deadletter.boundary;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.deadletter.entity.DeadLetterFilter;
import dev.lazarus.deadletter.entity.RequeueJob;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.time.Instant;

/**
 * A bulk requeue job and its progress. {@code percent} is of the dead letters that matched at the start;
 * {@code filter} is exactly what it selects (open dead letters only), {@code skippedDetail} the first ones it
 * passed over and why.
 */
public record RequeueJobView(long id, String state, String requestedBy, JsonObject filter, int ratePerSecond, long total,
                             long requeued, long redispatched, long skipped, String skippedDetail, int percent,
                             boolean cancelRequested, String lastError, Instant createdAt, Instant updatedAt, Instant finishedAt) {

    static RequeueJobView of(RequeueJob job) {
        long handled = job.requeued() + job.skipped();
        int percent = job.total() == 0 ? 100 : (int) Math.min(100, handled * 100 / job.total());
        return new RequeueJobView(job.id(), job.state().name(), job.requestedBy(), filterOf(job.filter()), job.ratePerSecond(),
                job.total(), job.requeued(), job.redispatched(), job.skipped(), job.skippedDetail(), percent, job.cancelRequested(),
                job.lastError(), job.createdAt(), job.updatedAt(), job.finishedAt());
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
