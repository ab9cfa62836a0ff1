package dev.lazarus.pipeline.control;

import jakarta.json.JsonObject;
import java.util.UUID;

/**
 * What a handler knows about the attempt it is executing.
 *
 * @param attempt        this attempt's number, 1 for the first (counted by Lazarus: deliveries rolled back before
 *                       the step ran are not attempts)
 * @param maxAttempts    how many failed attempts the step's retry policy allows
 * @param failedBefore   how many earlier attempts of this dispatch failed (the others, if any, were interrupted)
 * @param requeueCount   how often an operator has requeued the run
 * @param idempotencyKey the same for every delivery of this dispatch, different after a requeue
 * @param probe          whether this is not a delivery but the probe of a held step: a dry run on a waiting run's payload,
 *                       in a transaction that is rolled back, charging the run no attempt (what the handler does outside
 *                       the database, it does; handlers are idempotent)
 */
public record StepContext(UUID runId, String pipeline, String step, int attempt, int maxAttempts, int failedBefore,
                          int requeueCount, String idempotencyKey, JsonObject payload, boolean probe) {

    /** A delivery's context (not a probe's). */
    public StepContext(UUID runId, String pipeline, String step, int attempt, int maxAttempts, int failedBefore,
                       int requeueCount, String idempotencyKey, JsonObject payload) {
        this(runId, pipeline, step, attempt, maxAttempts, failedBefore, requeueCount, idempotencyKey, payload, false);
    }

    /** Whether failing now uses the step's last attempt (the run is then dead-lettered). */
    public boolean isLastAttempt() {
        return failedBefore + 1 >= maxAttempts;
    }
}
