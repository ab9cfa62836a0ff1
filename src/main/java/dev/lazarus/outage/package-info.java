/**
 * Outage control: when a step's dependency fails, Lazarus holds the step (its queue paused on every broker, its runs
 * waiting with their attempts untouched) instead of dead-lettering every run that reaches it, probes it after a
 * cool-down without charging a run an attempt, and lets it run again, ramping up, when the dependency is back.
 * Operators pause and resume steps by hand too. Steps' states themselves live with the pipelines
 * ({@link dev.lazarus.pipeline.control.StepControls}); this feature decides when to hold and probe, watches every node's
 * agreement with the database, and answers the steps' API.
 */
package dev.lazarus.outage;
