package dev.lazarus.pipeline.control;

import dev.lazarus.pipeline.entity.RunState;

/**
 * What the ledger decided about a delivered step message before any handler runs.
 *
 * @param attempt the attempt number recorded for this delivery (only when admitted)
 * @param generation the dispatch this delivery executes (only when admitted)
 * @param detail  for the log: why a message was not admitted
 */
public record Admission(Verdict verdict, int attempt, int requeueCount, long generation, String detail) {

    public enum Verdict {
        /** Run the handler. */
        ADMITTED,
        /** Obsolete (the run has moved on, was requeued or swept): acknowledge and note, never execute. */
        STALE,
        /** The run was dead-lettered at this very dispatch; the message belongs in the step's DLQ. */
        PARK,
        /** The database has no such run. */
        RUN_NOT_FOUND,
        /** The run belongs to a pipeline this queue does not serve. */
        WRONG_PIPELINE
    }

    /** @param generation the dispatch this delivery executes (a console replay executes under a new one) */
    static Admission admitted(int attempt, int requeueCount, long generation, String detail) {
        return new Admission(Verdict.ADMITTED, attempt, requeueCount, generation, detail);
    }

    static Admission rejected(Verdict verdict, String detail) {
        return new Admission(verdict, 0, 0, 0, detail);
    }

    static Admission stale(RunState state, long generation, String currentStep) {
        return rejected(Verdict.STALE, "run is " + state + " at step " + currentStep + ", generation " + generation);
    }
}
