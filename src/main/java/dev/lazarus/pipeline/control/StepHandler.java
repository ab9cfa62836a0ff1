package dev.lazarus.pipeline.control;

import jakarta.json.JsonObject;

/**
 * The work of one step, written by the application developer as a CDI bean.
 *
 * <p>It runs inside the consumer's JTA transaction: database work it does commits together with the run's
 * progress and the next step's message, or not at all. Throw to fail the attempt (the broker redelivers after
 * the step's backoff); throw {@link PermanentStepFailure} when retrying can never help. A step may be
 * delivered more than once: use {@link StepContext#idempotencyKey()} to make external effects idempotent.
 */
public interface StepHandler {

    /** @return the payload the next step receives (return {@code context.payload()} to pass it on unchanged) */
    JsonObject handle(StepContext context) throws Exception;
}
