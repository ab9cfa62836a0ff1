package dev.lazarus.pipeline.control;

import java.time.Duration;

/**
 * How long a step may sit in each live state before the sweeper dead-letters its run, as declared with the
 * pipeline. A null entry means the global default; configuration overrides both (see the reference, "Configuration
 * properties").
 *
 * @param stuckAfter       in progress without a heartbeat ({@code STUCK_IN_PROGRESS})
 * @param waitingAfter     dispatched and not picked up by any consumer ({@code WAITING_TOO_LONG})
 * @param unrecoveredAfter failed and not redelivered or recovered since ({@code UNRECOVERED_ERROR})
 */
public record Staleness(Duration stuckAfter, Duration waitingAfter, Duration unrecoveredAfter) {

    public static final Staleness DEFAULTS = new Staleness(null, null, null);

    public Staleness {
        requirePositive(stuckAfter, "stuckAfter");
        requirePositive(waitingAfter, "waitingAfter");
        requirePositive(unrecoveredAfter, "unrecoveredAfter");
    }

    public Staleness stuckAfter(Duration threshold) {
        return new Staleness(threshold, waitingAfter, unrecoveredAfter);
    }

    public Staleness waitingAfter(Duration threshold) {
        return new Staleness(stuckAfter, threshold, unrecoveredAfter);
    }

    public Staleness unrecoveredAfter(Duration threshold) {
        return new Staleness(stuckAfter, waitingAfter, threshold);
    }

    private static void requirePositive(Duration threshold, String name) {
        if (threshold != null && (threshold.isZero() || threshold.isNegative())) {
            throw new IllegalArgumentException(name + " must be positive, was " + threshold);
        }
    }
}
