/**
 * Pipelines and their runs: how a developer declares a pipeline (ordered steps, each with a handler, its
 * own queue and retry policy), how a run moves through it, and the consumers that execute each step.
 *
 * <p>The database is the source of truth for what a run is doing; a JMS step message is only the dispatch.
 * Every message carries the run's generation (a fencing token) so that a message made obsolete by a
 * sweep, a requeue or a completion is acknowledged and noted, never executed.
 *
 * <p>This feature depends on no other. A delivery that does not end in its step's success is reported through
 * {@code control.DeliveryOutcomes}, a run's view shows its dead letter through {@code boundary.RunDeadLetters}, and an
 * operator's stop of a run goes through {@code boundary.RunStops}; the dead-letter feature implements all three and
 * builds on this one's entities.
 */
package dev.lazarus.pipeline;
