package dev.lazarus.pipeline.control;

/**
 * What each delivery of a step came to, for whoever watches a step's health: the automatic hold (the outage feature)
 * holds a step whose retryable failures cross a threshold. Only failures that retrying may cure are reported: a
 * message's own fault (malformed, unknown step, a declared permanent failure) says nothing about the step's
 * dependency. Called on the delivery's thread, inside its transaction: quick, and never failing the delivery.
 */
public interface StepHealth {

    void succeeded(StepDefinition step);

    void failedRetryably(StepDefinition step, Throwable failure);
}
