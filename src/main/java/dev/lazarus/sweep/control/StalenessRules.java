package dev.lazarus.sweep.control;

import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.pipeline.control.Pipelines;
import dev.lazarus.pipeline.control.Staleness;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.pipeline.entity.RunState;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Function;
import org.eclipse.microprofile.config.Config;

/**
 * When a live run counts as stale, in one place for the sweeper and the staleness view.
 *
 * <p>Each live state has its clock and its reason: {@code IN_PROGRESS} is measured from the heartbeat
 * ({@code STUCK_IN_PROGRESS}), {@code PENDING} and {@code RETRYING} from the run's last change
 * ({@code WAITING_TOO_LONG}, {@code UNRECOVERED_ERROR}). A threshold is looked up, first match wins, in
 * configuration for the step ({@code lazarus.sweep.<pipeline>.<step>.stuck-after}), configuration for the
 * pipeline ({@code lazarus.sweep.<pipeline>.stuck-after}), the pipeline's code, and the global default
 * ({@code lazarus.sweep.stuck-after}); likewise {@code waiting-after} and {@code unrecovered-after}.
 * Configuration is read on every sweep, so a changed system property takes effect without a redeployment.
 */
@ApplicationScoped
public class StalenessRules {

    /** At or above this share of its threshold a run is shown as a warning. */
    public static final double WARNING_RATIO = 0.8;

    public enum Health { HEALTHY, WARNING, STALE }

    /** The three ways a live run goes stale. */
    public enum Kind {
        STUCK(RunState.IN_PROGRESS, "stuck-after", DeadLetterReason.STUCK_IN_PROGRESS, Duration.ofMinutes(5), Staleness::stuckAfter),
        WAITING(RunState.PENDING, "waiting-after", DeadLetterReason.WAITING_TOO_LONG, Duration.ofMinutes(15), Staleness::waitingAfter),
        UNRECOVERED(RunState.RETRYING, "unrecovered-after", DeadLetterReason.UNRECOVERED_ERROR, Duration.ofMinutes(30), Staleness::unrecoveredAfter);

        public final RunState state;
        public final String key;
        public final DeadLetterReason reason;
        final Duration builtInDefault;
        final Function<Staleness, Duration> declared;

        Kind(RunState state, String key, DeadLetterReason reason, Duration builtInDefault, Function<Staleness, Duration> declared) {
            this.state = state;
            this.key = key;
            this.reason = reason;
            this.builtInDefault = builtInDefault;
            this.declared = declared;
        }

        public static Optional<Kind> of(RunState state) {
            for (Kind kind : values()) {
                if (kind.state == state) {
                    return Optional.of(kind);
                }
            }
            return Optional.empty();
        }
    }

    @Inject
    Config config;

    @Inject
    Pipelines pipelines;

    public Duration threshold(Kind kind, String pipeline, String step) {
        Optional<Duration> configured = duration("lazarus.sweep." + pipeline + "." + step + "." + kind.key)
                .or(() -> duration("lazarus.sweep." + pipeline + "." + kind.key));
        if (configured.isPresent()) {
            return configured.get();
        }
        return pipelines.step(pipeline, step)
                .map(StepDefinition::staleness)
                .map(kind.declared)
                .orElseGet(() -> globalDefault(kind));
    }

    public Duration globalDefault(Kind kind) {
        return duration("lazarus.sweep." + kind.key).orElse(kind.builtInDefault);
    }

    /** The shortest threshold of any deployed step: the cut-off of the sweeper's one range query per kind. */
    public Duration shortest(Kind kind) {
        Duration shortest = globalDefault(kind);
        for (var pipeline : pipelines.all()) {
            for (StepDefinition step : pipeline.steps()) {
                Duration threshold = threshold(kind, pipeline.name(), step.name());
                if (threshold.compareTo(shortest) < 0) {
                    shortest = threshold;
                }
            }
        }
        return shortest;
    }

    public static Health health(Duration inState, Duration threshold) {
        if (inState.compareTo(threshold) >= 0) {
            return Health.STALE;
        }
        return inState.toMillis() >= threshold.toMillis() * WARNING_RATIO ? Health.WARNING : Health.HEALTHY;
    }

    /** The instant a live run's staleness clock started: its heartbeat while in progress, else its last change. */
    public static Instant clockStart(RunState state, Instant heartbeatAt, Instant updatedAt) {
        return state == RunState.IN_PROGRESS && heartbeatAt != null ? heartbeatAt : updatedAt;
    }

    /**
     * The same, for a run at a step that was paused or held and ran again at {@code stepResumedAt} (null if never): a
     * run at a step does not wait for its consumer while the step is held, so its clock starts again when the step runs
     * again. That holds for a run in progress too: one whose node died mid-attempt has its message back in the step's
     * queue, which the hold keeps from being delivered, so its heartbeat is silent because of the hold (issue #21: a
     * hold never dead-letters a run by itself); a handler that really hangs is found once the step has run again for
     * longer than its threshold.
     */
    public static Instant clockStart(RunState state, Instant heartbeatAt, Instant updatedAt, Instant stepResumedAt) {
        Instant start = clockStart(state, heartbeatAt, updatedAt);
        return stepResumedAt != null && stepResumedAt.isAfter(start) ? stepResumedAt : start;
    }

    private Optional<Duration> duration(String key) {
        return config.getOptionalValue(key, String.class).map(Duration::parse);
    }
}
