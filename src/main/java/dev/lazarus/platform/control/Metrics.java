package dev.lazarus.platform.control;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Lazarus's counters and timers, in one place so their names and labels are kept consistent (and listed in the
 * the reference, src/site/markdown/reference.md, section "Metrics"). They are Micrometer meters in the registry of WildFly's Micrometer subsystem, which
 * serves them on its Prometheus endpoint: {@code lazarus.dead.letters} becomes
 * {@code lazarus_dead_letters_total}, a timer {@code lazarus.step.duration} becomes
 * {@code lazarus_step_duration_seconds_count}, {@code _sum} and {@code _max}.
 *
 * <p>Only {@code registry.counter(name, tags)} and {@code registry.timer(name, tags)} are used: in WildFly 39 the
 * registry a deployment gets exports only meters made that way (meters made with a builder, and so histograms,
 * stay private to the deployment until WildFly 40/41). Labels take values from small fixed sets (reasons,
 * pipeline and step names of the deployment, outcomes): a value from outside, such as a step named by a message
 * sent by hand, is reported as {@value #UNKNOWN}, so hostile input cannot grow the number of series.
 *
 * <p>Counters of committed changes are incremented after the commit ({@link AfterCommit}); the gauges (open dead
 * letters, queue depths) are registered by the features that own what they measure.
 */
@ApplicationScoped
public class Metrics {

    public static final String UNKNOWN = "unknown";

    private static final String DEAD_LETTERS = "lazarus.dead.letters";
    private static final String REQUEUES = "lazarus.requeues";
    private static final String STEP_DURATION = "lazarus.step.duration";
    private static final String STEP_RETRIES = "lazarus.step.retries";
    private static final String STEP_REPLAYS = "lazarus.step.replays";
    private static final String RUNS_STARTED = "lazarus.runs.started";
    private static final String RUNS_FINISHED = "lazarus.runs.finished";
    private static final String SWEEP_DURATION = "lazarus.sweep.duration";
    private static final String RUNS_SWEPT = "lazarus.sweep.runs.swept";
    private static final String RECONCILER_FINDINGS = "lazarus.reconciler.findings";
    private static final String DIAGNOSTICS_WRITE_FAILURES = "lazarus.diagnostics.write.failures";
    private static final String STEP_STATE_CHANGES = "lazarus.step.state.changes";
    private static final String STEP_PROBE_DURATION = "lazarus.step.probe.duration";
    private static final String STEP_HOLD_DURATION = "lazarus.step.hold.duration";
    private static final List<String> STEP_STATE_ACTIONS = List.of("PAUSED", "RESUMED", "HELD", "PROBE_SUCCEEDED", "PROBE_FAILED");
    private static final String BULK_JOB_DEAD_LETTERS = "lazarus.bulk.job.dead.letters";
    private static final String DEAD_LETTERS_RESOLVED = "lazarus.dead.letters.resolved";
    /** The {@code root_cause} of a resolve that recorded none. */
    public static final String NO_ROOT_CAUSE = "none";
    /** The values of the labels that come from fixed sets, declared at 0 (see {@link #declare}). */
    private static final List<String> FINISHED_STATES = List.of("COMPLETED", "DEAD_LETTERED");
    private static final List<String> STEP_OUTCOMES = List.of("succeeded", "failed");
    private static final List<String> FINDINGS = List.of("recorded", "failed");
    private static final List<String> DIAGNOSTICS = List.of("dead_letter", "failed_attempt", "step_success", "reconciler", "sweep_finished",
            "retention_finished", "silent-requeue-jobs_finished");

    @Inject
    MeterRegistry registry;

    /**
     * The meters already looked up. WildFly's registry finds a meter by searching all of the server's meters, on every
     * call; a step reports several times, so each meter is looked up once and kept.
     */
    private final Map<List<String>, Counter> counters = new ConcurrentHashMap<>();
    private final Map<List<String>, Timer> timers = new ConcurrentHashMap<>();

    private Counter counter(String name, String... tags) {
        return counters.computeIfAbsent(key(name, tags), k -> registry.counter(name, Tags.of(tags)));
    }

    private Timer timer(String name, String... tags) {
        return timers.computeIfAbsent(key(name, tags), k -> registry.timer(name, Tags.of(tags)));
    }

    private static List<String> key(String name, String... tags) {
        List<String> key = new ArrayList<>(tags.length + 1);
        key.add(name);
        key.addAll(Arrays.asList(tags));
        return key;
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** A dead letter was recorded (committed). */
    public void deadLetterCreated(String reason, String pipeline, String step) {
        counter(DEAD_LETTERS, "reason", reason, "pipeline", pipeline, "step", step).increment();
    }

    /** A dead-lettered run was brought back; {@code method} says how its message was found (moved, dispatched again, console). */
    public void requeued(String method) {
        counter(REQUEUES, "method", method).increment();
    }

    /** A step's handler ran: how long, and whether it succeeded (its success may still fail to commit; then it runs again). */
    public void stepExecuted(String pipeline, String step, boolean succeeded, Duration took) {
        timer(STEP_DURATION, "pipeline", pipeline, "step", step, "outcome", succeeded ? "succeeded" : "failed").record(took);
    }

    /** A step's attempt failed and the broker will deliver it again. */
    public void stepRetried(String pipeline, String step) {
        counter(STEP_RETRIES, "pipeline", pipeline, "step", step).increment();
    }

    /**
     * A step message arrived whose step's record had committed (a crash between the commit and the acknowledgement, or a
     * dispatch sent twice): acknowledged without running the step.
     */
    public void stepReplayed(String pipeline, String step) {
        counter(STEP_REPLAYS, "pipeline", pipeline, "step", step).increment();
    }

    /** A run was started, or finished ({@code state} COMPLETED or DEAD_LETTERED). */
    public void runStarted(String pipeline) {
        counter(RUNS_STARTED, "pipeline", pipeline).increment();
    }

    public void runFinished(String pipeline, String state) {
        counter(RUNS_FINISHED, "pipeline", pipeline, "state", state).increment();
    }

    /** A sweep for stale runs ended, having dead-lettered {@code swept} of them. */
    public void swept(int swept, Duration took) {
        timer(SWEEP_DURATION).record(took);
        counter(RUNS_SWEPT).increment(swept);
    }

    /** The reconciler settled a message it found in a DLQ: {@code recorded} a dead letter nothing had explained, or failed to. */
    public void reconcilerFinding(String outcome, int count) {
        if (count > 0) {
            counter(RECONCILER_FINDINGS, "outcome", outcome).increment(count);
        }
    }

    /**
     * Lazarus could not write what it knows about a failure (a dead letter, a failed attempt): the database was away
     * or refused. Nothing is lost (the message stays with the broker and is looked at again), but the evidence is late.
     */
    public void diagnosticsWriteFailed(String what) {
        counter(DIAGNOSTICS_WRITE_FAILURES, "what", what).increment();
    }

    /** A step's state changed, or it was probed: {@code action} PAUSED, RESUMED, HELD, PROBE_SUCCEEDED or PROBE_FAILED. */
    public void stepStateChanged(String pipeline, String step, String action) {
        counter(STEP_STATE_CHANGES, "pipeline", pipeline, "step", step, "action", action).increment();
    }

    /** A held step was probed: how long the probe took, and whether it succeeded. */
    public void stepProbed(String pipeline, String step, boolean succeeded, Duration took) {
        timer(STEP_PROBE_DURATION, "pipeline", pipeline, "step", step, "outcome", succeeded ? "succeeded" : "failed").record(took);
    }

    /** A hold ended (the step runs again, or an operator paused it): how long the step was held. */
    public void stepHoldEnded(String pipeline, String step, Duration held) {
        timer(STEP_HOLD_DURATION, "pipeline", pipeline, "step", step).record(held);
    }

    /**
     * A batch of a bulk job committed: it got through {@code count} of its dead letters (acted on or skipped). The sign
     * of life of a running job, by its {@code action} (requeue, discard, resolve).
     */
    public void bulkJobProgressed(String action, int count) {
        counter(BULK_JOB_DEAD_LETTERS, "action", action).increment(count);
    }

    /** A dead letter resolved by hand, by the root cause its resolve recorded ({@link #NO_ROOT_CAUSE} if none). */
    public void deadLetterResolved(String rootCause) {
        counter(DEAD_LETTERS_RESOLVED, "root_cause", rootCause).increment();
    }

    /** Makes the resolves' series exist at 0, one for each root cause a resolve may record and {@link #NO_ROOT_CAUSE}. */
    public void declareRootCauses(List<String> rootCauses) {
        rootCauses.forEach(cause -> counter(DEAD_LETTERS_RESOLVED, "root_cause", cause));
        counter(DEAD_LETTERS_RESOLVED, "root_cause", NO_ROOT_CAUSE);
    }

    /** Makes the bulk jobs' series exist at 0, one for each of their {@code actions} (see {@link #declare}). */
    public void declareBulkJobs(List<String> actions) {
        actions.forEach(action -> counter(BULK_JOB_DEAD_LETTERS, "action", action));
    }

    /**
     * Makes the series exist at 0 before anything happened, so that a dashboard or an alert rule (and the test that
     * every metric a rule names is exported) sees them from the start.
     *
     * @param steps          each step of the deployment, as {pipeline, step}
     * @param requeueMethods every way a requeue can find its message
     */
    public void declare(List<String[]> steps, List<String> requeueMethods) {
        for (String[] step : steps) {
            counter(RUNS_STARTED, "pipeline", step[0]);
            FINISHED_STATES.forEach(state -> counter(RUNS_FINISHED, "pipeline", step[0], "state", state));
            STEP_OUTCOMES.forEach(outcome -> timer(STEP_DURATION, "pipeline", step[0], "step", step[1], "outcome", outcome));
            counter(STEP_RETRIES, "pipeline", step[0], "step", step[1]);
            counter(STEP_REPLAYS, "pipeline", step[0], "step", step[1]);
            counter(DEAD_LETTERS, "reason", "RETRIES_EXHAUSTED", "pipeline", step[0], "step", step[1]);
            STEP_STATE_ACTIONS.forEach(action -> counter(STEP_STATE_CHANGES, "pipeline", step[0], "step", step[1], "action", action));
            STEP_OUTCOMES.forEach(outcome -> timer(STEP_PROBE_DURATION, "pipeline", step[0], "step", step[1], "outcome", outcome));
            timer(STEP_HOLD_DURATION, "pipeline", step[0], "step", step[1]);
        }
        requeueMethods.forEach(method -> counter(REQUEUES, "method", method));
        timer(SWEEP_DURATION);
        counter(RUNS_SWEPT);
        FINDINGS.forEach(outcome -> counter(RECONCILER_FINDINGS, "outcome", outcome));
        DIAGNOSTICS.forEach(what -> counter(DIAGNOSTICS_WRITE_FAILURES, "what", what));
    }

}
