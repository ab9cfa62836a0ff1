package dev.lazarus.pipeline.control;

/**
 * A step's handler may implement this to tell whether what the step depends on is back, when the step is held (see
 * the developer's guide, "Holds and probes"): a cheap call to the dependency's health check, say. It throws if the
 * dependency is still away. A step without it is probed with one waiting message's dry run instead: its handler runs on that run's
 * payload in a transaction that is rolled back, and no run is charged an attempt.
 */
public interface StepProbe {

    void probe() throws Exception;
}
