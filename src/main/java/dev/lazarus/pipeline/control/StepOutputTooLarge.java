package dev.lazarus.pipeline.control;

/**
 * A handler returned more than a run's payload can hold. Retrying would return the same, so the run is
 * dead-lettered at once (with this as its reason's evidence) instead of failing to record its success forever.
 */
@NonRetryable
public class StepOutputTooLarge extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public StepOutputTooLarge(String step, int characters, int limit) {
        super("step " + step + " returned " + characters + " characters of JSON; a run's payload holds at most " + limit);
    }
}
