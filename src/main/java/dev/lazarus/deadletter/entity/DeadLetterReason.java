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
 *
 * <p>Each reason carries its runbook ({@link #runbook()}): its description says what it means, then what to check and what
 * to do, in the words of Lazarus's own pages, actions and metrics. A reason without one does not compile.
 */
public enum DeadLetterReason {
    RETRIES_EXHAUSTED("Retries exhausted", Severity.ERROR, 3, false,
            "The step failed on every attempt its retry policy allows.",
            "On the dead letter page read the error and the stack trace; on the investigation queue see how big "
                    + "its cause group is; on the Steps page see whether the step is held (its dependency down) and check "
                    + "lazarus_step_retries_total for the step.",
            "If the dependency was down and is back (step running again), requeue: one from this page, or the "
                    + "whole cause group with a bulk requeue by cause. If the input is wrong, use Edit payload and requeue. "
                    + "If it is a code defect, fix and deploy before requeueing."),
    NON_RETRYABLE("Non-retryable failure", Severity.ERROR, 2, false,
            "The handler declared the failure permanent; retrying cannot help.",
            "Read the error on this page: the handler says why it refused. Look at the payload in the run "
                    + "snapshot; on Dead letters filter by the same cause to see how many runs share it.",
            "Retrying as it is fails again. Fix the payload (Edit payload and requeue), finish the step by hand "
                    + "(Complete step) or, if the pipeline allows, Skip step; otherwise Resolve with root cause BAD_DATA or "
                    + "CODE_DEFECT, or Discard."),
    UNDELIVERABLE("Undeliverable", Severity.ERROR, 2, false,
            "The broker gave up delivering the step before its attempts were used: the consumer could not take the"
                    + " message (server starting or stopping, database unreachable).",
            "Check the server log around the dead letter's time for start-up, shutdown or database errors, and "
                    + "lazarus_readings_ok{source=\"database\"}; on the Steps page check the step is running.",
            "The step itself never failed: once the server and the database are healthy, requeue (one, or a bulk "
                    + "requeue of the reason UNDELIVERABLE)."),
    MALFORMED_MESSAGE("Malformed message", Severity.WARNING, 4, true,
            "The message on the step queue is not a Lazarus step message.",
            "Read the message body kept on this page and who could have sent it (a script, the Artemis console's "
                    + "Send, another application on the same queue).",
            "No run can come back from it: Discard it (the evidence stays), and stop whatever sends such messages "
                    + "to a Lazarus step queue."),
    UNKNOWN_STEP("Unknown pipeline or step", Severity.WARNING, 4, true,
            "The message names a pipeline or step this queue does not serve.",
            "Compare the pipeline and step the message names with the Steps page: a deployment that removed or "
                    + "renamed a step, or a message sent to the wrong queue.",
            "Deploy the version that knows the step if runs still need it; otherwise Discard. Nothing here can be requeued."),
    RUN_NOT_FOUND("Run not found", Severity.WARNING, 5, true,
            "The message names a run the database does not have (deleted or never committed).",
            "Look up the run id on the Runs page: a run deleted by hand or a submission whose transaction rolled "
                    + "back leaves messages that name nothing.",
            "Discard it. If many appear at once, check the database was not restored from an older backup."),
    STALE_MESSAGE("Stale message", Severity.INFO, 6, true,
            "The message names a dispatch its run is not waiting for, or copies one whose own message is still on its way"
                    + " (a late copy, or one sent by hand); it did not run.",
            "On the run's page check the run went on without this message (completed, or at a later step); the "
                    + "message came late or was sent again by hand.",
            "Usually nothing: Resolve or Discard it. Many of them at once point at a broker that redelivered old "
                    + "messages or a console Retry of the wrong DLQ."),
    STUCK_IN_PROGRESS("Stuck in progress", Severity.CRITICAL, 1, false,
            "A consumer started the step and gave no sign of life within the threshold.",
            "On the run's page see which node started the step and when; check that node is alive and the step's "
                    + "handler does not hang (thread dump, lazarus_step_duration_seconds for the step). The Staleness page "
                    + "shows how many runs are near the threshold.",
            "If the node died, requeue: the run resumes with a new generation and the old dispatch is fenced off. "
                    + "If the handler hangs on a dependency, fix or wait for it (the step may be held), then requeue the "
                    + "cause group."),
    WAITING_TOO_LONG("Waiting too long", Severity.CRITICAL, 1, false,
            "The step was dispatched but no consumer picked it up within the threshold.",
            "On the Steps page check the step is not paused and has consumers; in the Artemis console check the "
                    + "step's queue depth; check every node is up and lazarus_dead_letters_open is not climbing for other "
                    + "steps too.",
            "Bring back the consumers (resume the step, start a node, fix the broker connection), then requeue: "
                    + "one, or in bulk by reason WAITING_TOO_LONG and step."),
    UNRECOVERED_ERROR("Unrecovered error", Severity.ERROR, 2, false,
            "The step failed and did not recover within the recovery window.",
            "Read the last error on this page and the step's attempts on the run page; check the step's "
                    + "dependency and whether the step is held on the Steps page.",
            "Once the cause is fixed, requeue (one or the cause group in bulk); if the input is the problem, Edit "
                    + "payload and requeue."),
    REQUEUE_LIMIT("Requeue limit reached", Severity.ERROR, 2, false,
            "The run was requeued too often; parked instead of looping.",
            "Read the run's audit trail on this page: it was requeued again and again and failed each time; the "
                    + "error says what it would have been.",
            "Do not requeue again unchanged: fix the cause first, then use Edit payload or Complete step, or "
                    + "Resolve with its root cause, or Discard."),
    MANUAL("Dead-lettered by an operator", Severity.INFO, 7, false,
            "An operator stopped the run by hand.",
            "Read the note in the audit trail: the operator who stopped the run says why.",
            "Follow up as the note says: requeue once the reason is gone, or Resolve or Discard.");

    public enum Severity { INFO, WARNING, ERROR, CRITICAL }

    /** The reasons about a message on its own: what queries about the dead letters that stop runs leave out. */
    public static final java.util.List<DeadLetterReason> ABOUT_A_MESSAGE = java.util.Arrays.stream(values())
            .filter(DeadLetterReason::aboutMessage).toList();

    private final String label;
    private final Severity severity;
    private final int priority;
    private final boolean aboutMessage;
    private final String description;
    private final Runbook runbook;

    DeadLetterReason(String label, Severity severity, int priority, boolean aboutMessage, String description, String check, String act) {
        this.label = label;
        this.severity = severity;
        this.priority = priority;
        this.aboutMessage = aboutMessage;
        this.description = description;
        this.runbook = new Runbook(description, check, act);
    }

    public String label() { return label; }
    public Severity severity() { return severity; }
    public int priority() { return priority; }
    public String description() { return description; }
    public boolean aboutMessage() { return aboutMessage; }

    /** What it means (its description), what to check and what to do: every reason has one. */
    public Runbook runbook() { return runbook; }
}
