package dev.lazarus.deadletter.control;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The loop guard: a run may be requeued at most {@code lazarus.requeue.max-per-run} times (default 5). A run
 * that fails again after that is parked with reason {@code REQUEUE_LIMIT} and cannot be requeued, so neither
 * an operator nor a bulk requeue can keep a poison run circling.
 */
@ApplicationScoped
public class RequeuePolicy {

    @Inject
    @ConfigProperty(name = "lazarus.requeue.max-per-run", defaultValue = "5")
    int maxPerRun;

    /** Whether a run that has been requeued {@code requeueCount} times has used up its requeues. */
    public boolean exhausted(int requeueCount) {
        return requeueCount >= maxPerRun;
    }

    public int maxPerRun() {
        return maxPerRun;
    }
}
