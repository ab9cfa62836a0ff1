package dev.lazarus.pipeline.control;

/**
 * The one question a consumer asks before running a step, answered from the database: may this delivery run its step,
 * and if not, what is it? Everything but {@link Verdict#RUN} and {@link Verdict#REPLAY} is handed to the dead-letter
 * side once ({@link DeliveryOutcomes#settle}).
 *
 * @param attempt        the attempt number of this delivery ({@code RUN}), or the attempts used ({@code GIVE_UP})
 * @param failuresBefore how many earlier attempts of this dispatch failed ({@code RUN})
 * @param generation     the dispatch this delivery executes ({@code RUN})
 * @param resend         the dispatch a replay sends again ({@code REPLAY}: the one the step's record made, if the run
 *                       still waits for it); null otherwise
 * @param detail         why a delivery may not run: for the log, or the dead letter it gets
 */
public record Claim(Verdict verdict, int attempt, int failuresBefore, int requeueCount, long generation,
                    StepDispatcher.Dispatch resend, String detail) {

    public enum Verdict {
        /** Run the handler: the run waits for exactly this dispatch, and the attempt is counted. */
        RUN,
        /**
         * The step's record of this dispatch has committed (a crash came between the commit and the acknowledgement):
         * the handler never runs again; the next dispatch is sent again if the run still waits for it, and the message
         * is acknowledged.
         */
        REPLAY,
        /** The step has used its attempts (failed, or interrupted too often) before this delivery. */
        GIVE_UP,
        /** Not a dispatch the run is waiting for (it stopped, or moved on without this one's record). */
        NOT_AWAITED,
        /** A dispatch newer than the run's: the database may not show it yet; look again, then call it not awaited. */
        AHEAD,
        /** The database has no such run. */
        RUN_NOT_FOUND,
        /** The run belongs to a pipeline this queue does not serve. */
        WRONG_PIPELINE
    }

    static Claim run(int attempt, int failuresBefore, int requeueCount, long generation) {
        return new Claim(Verdict.RUN, attempt, failuresBefore, requeueCount, generation, null, null);
    }

    static Claim replay(StepDispatcher.Dispatch resend, String detail) {
        return new Claim(Verdict.REPLAY, 0, 0, 0, 0, resend, detail);
    }

    static Claim giveUp(int attempts, String detail) {
        return new Claim(Verdict.GIVE_UP, attempts, 0, 0, 0, null, detail);
    }

    static Claim refused(Verdict verdict, String detail) {
        return new Claim(verdict, 0, 0, 0, 0, null, detail);
    }
}
