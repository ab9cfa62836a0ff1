package dev.lazarus.deadletter.entity;

/**
 * The reason registry: every way a run can stop, with what an operator needs to triage it. Both detection
 * paths (the consumer inline, the sweeper, the reconciler) use these codes and nothing else; adding a
 * reason is one entry. Lower {@code priority} numbers are looked at first.
 *
 * {@code aboutMessage}: the dead letter is about one message on its own, which can never execute. It may name
 * a run, but it never stops, resumes or holds that run, and it cannot be requeued. (Whether a dead letter's
 * message is in its DLQ is not a property of the reason: Lazarus marks the dead letters whose message it
 * parked.)
 */
public enum DeadLetterReason {
    RETRIES_EXHAUSTED("Retries exhausted", Severity.ERROR, 3, false,
            "The step failed on every attempt its retry policy allows."),
    NON_RETRYABLE("Non-retryable failure", Severity.ERROR, 2, false,
            "The handler declared the failure permanent; retrying cannot help."),
    UNDELIVERABLE("Undeliverable", Severity.ERROR, 2, false,
            "The broker gave up delivering the step before its attempts were used: the consumer could not take the"
                    + " message (server starting or stopping, database unreachable)."),
    MALFORMED_MESSAGE("Malformed message", Severity.WARNING, 4, true,
            "The message on the step queue is not a Lazarus step message."),
    UNKNOWN_STEP("Unknown pipeline or step", Severity.WARNING, 4, true,
            "The message names a pipeline or step this queue does not serve."),
    RUN_NOT_FOUND("Run not found", Severity.WARNING, 5, true,
            "The message names a run the database does not have (deleted or never committed)."),
    STALE_MESSAGE("Stale message", Severity.INFO, 6, true,
            "The message names a dispatch its run is not waiting for, or copies one whose own message is still on its way"
                    + " (a late copy, or one sent by hand); it did not run."),
    STUCK_IN_PROGRESS("Stuck in progress", Severity.CRITICAL, 1, false,
            "A consumer started the step and gave no sign of life within the threshold."),
    WAITING_TOO_LONG("Waiting too long", Severity.CRITICAL, 1, false,
            "The step was dispatched but no consumer picked it up within the threshold."),
    UNRECOVERED_ERROR("Unrecovered error", Severity.ERROR, 2, false,
            "The step failed and did not recover within the recovery window."),
    REQUEUE_LIMIT("Requeue limit reached", Severity.ERROR, 2, false,
            "The run was requeued too often; parked instead of looping."),
    MANUAL("Dead-lettered by an operator", Severity.INFO, 7, false,
            "An operator stopped the run by hand.");

    public enum Severity { INFO, WARNING, ERROR, CRITICAL }

    /** The reasons about a message on its own: what queries about the dead letters that stop runs leave out. */
    public static final java.util.List<DeadLetterReason> ABOUT_A_MESSAGE = java.util.Arrays.stream(values())
            .filter(DeadLetterReason::aboutMessage).toList();

    private final String label;
    private final Severity severity;
    private final int priority;
    private final boolean aboutMessage;
    private final String description;

    DeadLetterReason(String label, Severity severity, int priority, boolean aboutMessage, String description) {
        this.label = label;
        this.severity = severity;
        this.priority = priority;
        this.aboutMessage = aboutMessage;
        this.description = description;
    }

    public String label() { return label; }
    public Severity severity() { return severity; }
    public int priority() { return priority; }
    public String description() { return description; }
    public boolean aboutMessage() { return aboutMessage; }
}
