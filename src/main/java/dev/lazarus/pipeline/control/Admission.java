package dev.lazarus.pipeline.control;

/**
 * What the ledger decided about a delivered step message before any handler runs.
 *
 * @param attempt        the attempt number recorded for this delivery (when admitted), or the attempts used (give up)
 * @param failuresBefore how many earlier attempts of this dispatch failed (when admitted)
 * @param generation     the dispatch this delivery executes (when admitted)
 * @param deadLetterId   the dead letter holding the run (park, console retry)
 * @param detail         why a message was not admitted: for the log, or the dead letter it gets
 */
public record Admission(Verdict verdict, int attempt, int failuresBefore, int requeueCount, long generation,
                        Long deadLetterId, String detail) {

    public enum Verdict {
        /** Run the handler. */
        ADMITTED,
        /** The step has used its attempts (failed, or interrupted too often) before this delivery: dead-letter it. */
        GIVE_UP,
        /**
         * A copy of a dispatch a dead letter explains (the delivery after the one that gave up, a late copy of a
         * fenced or requeued dispatch): the dead letter takes it, parked if it has no message yet, else noted.
         */
        TO_DEAD_LETTER,
        /** A message Lazarus parked in a DLQ, carrying its dead letter's token: retried from the Artemis console. */
        CONSOLE_RETRY,
        /** Not a dispatch the run is waiting for (it moved on, or was stopped): dead-letter the message on its own. */
        STALE,
        /** A dispatch newer than the run's: the database may not show it yet; look again, then call it stale. */
        AHEAD,
        /** The database has no such run. */
        RUN_NOT_FOUND,
        /** The run belongs to a pipeline this queue does not serve. */
        WRONG_PIPELINE
    }

    static Admission admitted(int attempt, int failuresBefore, int requeueCount, long generation) {
        return new Admission(Verdict.ADMITTED, attempt, failuresBefore, requeueCount, generation, null, null);
    }

    static Admission giveUp(int attempts, String detail) {
        return new Admission(Verdict.GIVE_UP, attempts, 0, 0, 0, null, detail);
    }

    static Admission ofDeadLetter(Verdict verdict, long deadLetterId, String detail) {
        return new Admission(verdict, 0, 0, 0, 0, deadLetterId, detail);
    }

    static Admission rejected(Verdict verdict, String detail) {
        return new Admission(verdict, 0, 0, 0, 0, null, detail);
    }
}
