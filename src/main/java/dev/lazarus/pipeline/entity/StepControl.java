package dev.lazarus.pipeline.entity;

import dev.lazarus.platform.entity.Text;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Whether a step's messages are delivered: {@link State#RUNNING}, {@link State#PAUSED} by an operator, or
 * {@link State#HELD} by Lazarus because its retryable failures crossed a threshold (its dependency is down, most
 * likely). While a step is paused or held its queue is paused on every broker, so its messages wait there with their
 * attempts untouched, and no run waiting at it is dead-lettered for waiting.
 *
 * <p>The rules it keeps: an operator's pause outranks a hold (a paused step is never resumed by Lazarus, and pausing a
 * held step makes it paused); only a running step can be held; a held step is probed when {@link #nextProbeAt()} comes
 * (by one node at a time: {@link #claimProbe}), runs again when a probe succeeds, and waits longer each time one fails
 * (its cool-down doubles, to a cap). Every change says who made it and why, as a {@link StepControlEvent}.
 */
@Entity
@Table(name = "step_control")
@IdClass(StepControl.Key.class)
public class StepControl {

    public enum State { RUNNING, PAUSED, HELD }

    /** The longest note a change keeps. */
    public static final int NOTE_LENGTH = 4000;

    /** The actor of what Lazarus does by itself (a hold, a probe). */
    public static final String LAZARUS = "lazarus";

    @Id
    @Column(nullable = false, length = Run.NAME_LENGTH)
    private String pipeline;

    @Id
    @Column(name = "step_name", nullable = false, length = Run.NAME_LENGTH)
    private String stepName;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false, length = 10)
    private State state;

    @Column(nullable = false)
    private Instant since;

    @Column(name = "changed_by", nullable = false, length = 100)
    private String changedBy;

    @Column(length = NOTE_LENGTH)
    private String note;

    @Column(name = "cause_fingerprint", length = 16)
    private String causeFingerprint;

    @Column(name = "cause_exception", length = 500)
    private String causeException;

    @Column(name = "cause_example", length = 2000)
    private String causeExample;

    @Column(name = "probes_failed", nullable = false)
    private int probesFailed;

    @Column(name = "next_probe_at")
    private Instant nextProbeAt;

    @Column(name = "probe_claimed_by", length = 100)
    private String probeClaimedBy;

    @Column(name = "probe_claimed_at")
    private Instant probeClaimedAt;

    @Column(name = "resumed_at")
    private Instant resumedAt;

    /**
     * Whether the brokers' queues have been brought to this state (paused, or resumed) by some node: until then every
     * node applies it at each reading. A change sets it false in its own transaction, so a resume survives the death of
     * the node that made it before it told the brokers.
     */
    @Column(name = "queues_updated", nullable = false)
    private boolean queuesUpdated = true;

    @Version
    private long version;

    protected StepControl() {
        // for JPA
    }

    /** A step as it starts: running. */
    public StepControl(String pipeline, String stepName, Instant now) {
        this.pipeline = Objects.requireNonNull(pipeline, "pipeline");
        this.stepName = Objects.requireNonNull(stepName, "stepName");
        this.state = State.RUNNING;
        this.since = Objects.requireNonNull(now, "now");
        this.changedBy = LAZARUS;
    }

    /** Why a step is held: what its failures have in common. */
    public record Cause(String fingerprint, String exceptionClass, String example) {
    }

    /** An operator pauses it (a held one too: the operator's pause outranks the hold). */
    public StepControlEvent pause(String operator, String why, Instant now) {
        if (state == State.PAUSED) {
            throw new IllegalStateException("step " + stepName + " of pipeline " + pipeline + " is already paused (by " + changedBy
                    + " since " + since + ")");
        }
        return change(State.PAUSED, "PAUSED", requireActor(operator), why, now);
    }

    /** An operator lets it run again, paused or held. */
    public StepControlEvent resume(String operator, String why, Instant now) {
        if (state == State.RUNNING) {
            throw new IllegalStateException("step " + stepName + " of pipeline " + pipeline + " is running, not paused or held");
        }
        return change(State.RUNNING, "RESUMED", requireActor(operator), why, now);
    }

    /**
     * Lazarus holds it, if it is running (a paused step stays paused, a held one held): its first probe after
     * {@code coolDown}.
     */
    public Optional<StepControlEvent> hold(Cause cause, String why, Instant now, Duration coolDown) {
        if (state != State.RUNNING) {
            return Optional.empty();
        }
        StepControlEvent event = change(State.HELD, "HELD", LAZARUS, why, now);
        causeFingerprint = cause.fingerprint();
        causeException = Text.truncate(cause.exceptionClass(), 500);
        causeExample = Text.truncate(cause.example(), 2000);
        probesFailed = 0;
        nextProbeAt = now.plus(coolDown);
        return Optional.of(event.withCause(causeFingerprint));
    }

    /**
     * Takes the next probe of a held step for {@code node}, if one is due and no other node has it (or the one that took
     * it has not finished within {@code claimTimeout}: it died, say).
     */
    public boolean claimProbe(String node, Instant now, Duration claimTimeout) {
        if (state != State.HELD || nextProbeAt == null || nextProbeAt.isAfter(now)) {
            return false;
        }
        if (probeClaimedBy != null && probeClaimedAt != null && probeClaimedAt.plus(claimTimeout).isAfter(now)) {
            return false;
        }
        probeClaimedBy = Text.truncate(node, 100);
        probeClaimedAt = now;
        return true;
    }

    /** A probe succeeded: it runs again (unless an operator paused it meanwhile: then nothing changes). */
    public Optional<StepControlEvent> probeSucceeded(String how, Instant now) {
        if (state != State.HELD) {
            return Optional.empty();
        }
        return Optional.of(change(State.RUNNING, "PROBE_SUCCEEDED", LAZARUS, how, now));
    }

    /** A probe failed: still held, the next probe after twice the last cool-down, at most {@code cap}. */
    public Optional<StepControlEvent> probeFailed(String why, Instant now, Duration coolDown, Duration cap) {
        if (state != State.HELD) {
            return Optional.empty();
        }
        probesFailed++;
        Duration wait = coolDown.multipliedBy(1L << Math.min(20, probesFailed));
        nextProbeAt = now.plus(wait.compareTo(cap) > 0 ? cap : wait);
        probeClaimedBy = null;
        probeClaimedAt = null;
        return Optional.of(new StepControlEvent(pipeline, stepName, now, LAZARUS, "PROBE_FAILED", state, state,
                Text.truncate(why, 4000)).withDetail("next probe at " + nextProbeAt));
    }

    private StepControlEvent change(State to, String action, String actor, String why, Instant now) {
        State from = state;
        if (from != State.RUNNING && to == State.RUNNING) {
            resumedAt = now;
        }
        state = to;
        since = now;
        changedBy = actor;
        queuesUpdated = false;
        note = why;
        if (to != State.HELD) {
            nextProbeAt = null;
            probeClaimedBy = null;
            probeClaimedAt = null;
        }
        if (to == State.RUNNING) {
            causeFingerprint = null;
            causeException = null;
            causeExample = null;
            probesFailed = 0;
        }
        return new StepControlEvent(pipeline, stepName, now, actor, action, from, to, why);
    }

    private static String requireActor(String actor) {
        if (actor == null || actor.isBlank()) {
            throw new IllegalArgumentException("a change of a step's state needs an actor");
        }
        return actor;
    }

    /** Whether its messages are delivered. */
    public boolean isRunning() {
        return state == State.RUNNING;
    }

    public String pipeline() { return pipeline; }
    public String stepName() { return stepName; }
    public State state() { return state; }
    public Instant since() { return since; }
    public String changedBy() { return changedBy; }
    public String note() { return note; }
    public String causeFingerprint() { return causeFingerprint; }
    public String causeException() { return causeException; }
    public String causeExample() { return causeExample; }
    public int probesFailed() { return probesFailed; }
    public Instant nextProbeAt() { return nextProbeAt; }
    public Instant resumedAt() { return resumedAt; }
    public boolean queuesUpdated() { return queuesUpdated; }

    /** The primary key: a step of a pipeline. */
    public static class Key implements Serializable {

        private static final long serialVersionUID = 1L;

        private String pipeline;
        private String stepName;

        public Key() {
        }

        public Key(String pipeline, String stepName) {
            this.pipeline = pipeline;
            this.stepName = stepName;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Key key && Objects.equals(pipeline, key.pipeline) && Objects.equals(stepName, key.stepName);
        }

        @Override
        public int hashCode() {
            return Objects.hash(pipeline, stepName);
        }
    }
}
