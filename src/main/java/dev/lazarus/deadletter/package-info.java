/**
 * Dead letters: why a run stopped (one reason registry, one service used by every detection path) and how
 * an operator brings it back (one requeue service used by the admin pages and the REST API) or closes it (one set of
 * investigation actions), one at a time or in bulk by filter (bulk jobs, which go through the same two).
 *
 * <p>The broker moves a poison message to its step's own {@code DLQ.<queue>}; it never sees the exception,
 * so Lazarus records the diagnostics next to it. Dead-lettering is terminal until an operator acts,
 * idempotent (one open dead letter per run, enforced by a unique column) and never deletes evidence.
 *
 * <p>It builds on the pipeline feature (runs, steps, dispatching) and takes over from its consumers and its run resource
 * through the interfaces that feature owns ({@code DeliveryOutcomes}, {@code RunDeadLetters}, {@code RunStops}); the
 * dependency never runs back.
 */
package dev.lazarus.deadletter;
