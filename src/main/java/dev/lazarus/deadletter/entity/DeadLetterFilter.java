package dev.lazarus.deadletter.entity;

import dev.lazarus.platform.entity.Text;
import java.time.Instant;
import java.util.UUID;

/**
 * Which dead letters an operator means: by reason, status, run, pipeline, step, time window (created at or
 * after {@code from}, before {@code to}), a piece of the error text (any case) and cause (a {@link Fingerprint}).
 * Null means any. The
 * lists, the dry run and the bulk requeue all select with the same filter.
 */
public record DeadLetterFilter(DeadLetterReason reason, DeadLetterStatus status, UUID runId, boolean openOnly,
                               String pipeline, String step, Instant from, Instant to, String errorContains, String cause) {

    /** The longest piece of error text a filter looks for (the column of a requeue job's filter). */
    public static final int ERROR_TEXT_LENGTH = 200;

    /** A cause is a {@link Fingerprint}: 16 hexadecimal digits. */
    public static final int CAUSE_LENGTH = 16;

    public static final DeadLetterFilter ALL = new DeadLetterFilter(null, null, null, false, null, null, null, null, null, null);

    public DeadLetterFilter {
        if (cause != null && cause.isBlank()) {
            cause = null;
        }
        if (errorContains != null && errorContains.isBlank()) {
            errorContains = null;
        }
        if (errorContains != null && errorContains.length() > ERROR_TEXT_LENGTH) {
            throw new IllegalArgumentException("the error text to look for has at most " + ERROR_TEXT_LENGTH + " characters");
        }
        if (cause != null && !cause.matches("[0-9a-f]{" + CAUSE_LENGTH + "}")) {
            throw new IllegalArgumentException("a cause is a fingerprint of 16 hexadecimal digits (as the list of causes shows it), was '"
                    + Text.printable(cause, 40) + "'");
        }
        if (from != null && to != null && !from.isBefore(to)) {
            throw new IllegalArgumentException("the time window is empty: from " + from + " is not before to " + to);
        }
    }

    public DeadLetterFilter open() {
        return new DeadLetterFilter(reason, status, runId, true, pipeline, step, from, to, errorContains, cause);
    }
}
