package dev.lazarus.pipeline.boundary;

import java.util.UUID;

/**
 * Stopping a live run by hand ({@code POST /api/runs/{id}/stop}). A stopped run is a dead letter (reason {@code MANUAL})
 * made by the dead-letter feature's one service, so that feature implements this; the run's resource only takes the
 * request, and the dependency runs one way (see {@code RunDeadLetters}).
 */
public interface RunStops {

    /**
     * Stops the run as the authenticated caller (an operator), with {@code note} saying why (required, a note's limit).
     * Every message of the dispatch it was at is fenced from then on; a requeue of its dead letter brings it back.
     *
     * @return the id of the dead letter that now holds the run
     * @throws dev.lazarus.platform.control.Problem 400 for a note that is none, 404 for no such run, 409 for a run that
     *                                              has ended (completed, or already stopped)
     */
    long stop(UUID runId, String note);
}
