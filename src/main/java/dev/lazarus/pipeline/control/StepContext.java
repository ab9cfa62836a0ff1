package dev.lazarus.pipeline.control;

import jakarta.json.JsonObject;
import java.util.UUID;

/**
 * What a handler knows about the attempt it is executing.
 *
 * @param attempt       this delivery's number, 1 for the first (from the broker's delivery count)
 * @param requeueCount  how often an operator has requeued the run
 * @param idempotencyKey the same for every delivery of this dispatch, different after a requeue
 */
public record StepContext(UUID runId, String pipeline, String step, int attempt, int maxAttempts, int requeueCount,
                          String idempotencyKey, JsonObject payload) {

    public boolean isLastAttempt() {
        return attempt >= maxAttempts;
    }
}
