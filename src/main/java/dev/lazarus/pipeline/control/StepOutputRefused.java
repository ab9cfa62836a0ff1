package dev.lazarus.pipeline.control;

/**
 * A handler returned what a run's payload cannot hold (see {@link Payloads}: too large, or nested too deep). Retrying
 * would return the same, so the run is dead-lettered at once (with this as its reason's evidence) instead of failing
 * to record its success forever.
 */
@NonRetryable
public class StepOutputRefused extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public StepOutputRefused(String why) {
        super(why);
    }
}
