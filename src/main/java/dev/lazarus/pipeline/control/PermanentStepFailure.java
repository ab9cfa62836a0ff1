package dev.lazarus.pipeline.control;

/**
 * Thrown by a handler when retrying can never succeed (invalid input, a rejected request): the run is
 * dead-lettered on this attempt with reason {@code NON_RETRYABLE} instead of burning the remaining retries.
 */
@NonRetryable
public class PermanentStepFailure extends Exception {

    private static final long serialVersionUID = 1L;

    public PermanentStepFailure(String message) {
        super(message);
    }

    public PermanentStepFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
