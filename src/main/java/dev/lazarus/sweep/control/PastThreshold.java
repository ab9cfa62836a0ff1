package dev.lazarus.sweep.control;

import dev.lazarus.pipeline.control.Pipelines;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.pipeline.entity.StepControl;
import dev.lazarus.sweep.control.StalenessRules.Kind;
import jakarta.persistence.Query;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * "A live run of this kind has been in its state for at least this share of its own step's threshold", as a JPQL
 * condition on {@code Run r}: the sweeper's candidates (the whole threshold) and the runs at risk (from
 * {@link StalenessRules#WARNING_RATIO}) are both found with it, so the gauges count what the sweeper will take.
 *
 * <p>One range condition on the state and its clock column with the shortest threshold of any deployed step keeps the
 * query an index range scan ({@code run (state, heartbeat_at)} or {@code run (state, updated_at)}): it reads the runs
 * past that cut-off, not all runs. One term per deployed step then holds each run to its own step's threshold; a run of
 * a pipeline no longer deployed matches none (nothing here can judge it).
 *
 * <p>A run at a step that is paused or held is not waiting for a consumer, nor stuck (its message, if its attempt was
 * cut short, waits in the held queue): its step has no term. Its clock starts again when the step runs again, so a
 * step that resumed later than the cut-off has no term either.
 *
 * @param clock      the kind's clock column ({@code r.heartbeatAt} while in progress, else {@code r.updatedAt})
 * @param condition  the condition, naming its parameters with a prefix of its own (two fit in one query)
 * @param parameters the values of those parameters
 */
record PastThreshold(String clock, String condition, Map<String, Object> parameters) {

    /**
     * Empty when no step can have a run past anything (none deployed, or every one paused or held).
     *
     * @param states each step's state ({@link dev.lazarus.pipeline.control.StepControls#all}); a step it leaves out runs
     */
    static java.util.Optional<PastThreshold> of(StalenessRules rules, Pipelines pipelines, Map<StepDefinition, StepControl> states,
                                               Kind kind, Instant now, double share, String prefix) {
        String clock = kind == Kind.STUCK ? "r.heartbeatAt" : "r.updatedAt";
        StringBuilder perStep = new StringBuilder();
        Map<String, Object> parameters = new LinkedHashMap<>();
        int i = 0;
        for (var pipeline : pipelines.all()) {
            for (StepDefinition step : pipeline.steps()) {
                Instant cutoff = cutoff(now, rules.threshold(kind, pipeline.name(), step.name()), share);
                StepControl state = states.get(step);
                if (state != null && (!state.isRunning() || state.resumedAt() != null && state.resumedAt().isAfter(cutoff))) {
                    continue;
                }
                String p = prefix + "p" + i;
                String s = prefix + "s" + i;
                String c = prefix + "c" + i;
                perStep.append(perStep.isEmpty() ? "" : " or ").append("(r.pipeline = :").append(p).append(" and r.currentStep = :")
                        .append(s).append(" and ").append(clock).append(" < :").append(c).append(')');
                parameters.put(p, pipeline.name());
                parameters.put(s, step.name());
                parameters.put(c, cutoff);
                i++;
            }
        }
        if (i == 0) {
            return java.util.Optional.empty();
        }
        parameters.put(prefix + "state", kind.state);
        parameters.put(prefix + "cutoff", cutoff(now, rules.shortest(kind), share));
        String condition = "(r.state = :" + prefix + "state and " + clock + " < :" + prefix + "cutoff and (" + perStep + "))";
        return java.util.Optional.of(new PastThreshold(clock, condition, Map.copyOf(parameters)));
    }

    <Q extends Query> Q bind(Q query) {
        parameters.forEach(query::setParameter);
        return query;
    }

    /** To the millisecond, as {@link StalenessRules#health} judges a run. */
    private static Instant cutoff(Instant now, Duration threshold, double share) {
        return now.minusMillis(Math.round(threshold.toMillis() * share));
    }
}
