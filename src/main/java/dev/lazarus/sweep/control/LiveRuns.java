package dev.lazarus.sweep.control;

import dev.lazarus.pipeline.entity.RunState;
import dev.lazarus.sweep.control.StalenessRules.Health;
import dev.lazarus.sweep.control.StalenessRules.Kind;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * The staleness view: every live run with how long it has been in its state, its threshold and its health,
 * so operators see trouble coming before the sweeper turns it into a dead letter.
 */
@Stateless
public class LiveRuns {

    /** The view looks at this many live runs at most, the longest-waiting first. */
    public static final int MAX_ASSESSED = 10_000;

    @PersistenceContext
    EntityManager em;

    @Inject
    StalenessRules rules;

    public List<Assessment> assess(Instant now, String pipeline) {
        return em.createQuery("select r.id, r.pipeline, r.currentStep, r.state, r.heartbeatAt, r.updatedAt from Run r"
                        + " where r.state in :live and (:pipeline is null or r.pipeline = :pipeline) order by r.updatedAt, r.id", Object[].class)
                .setParameter("live", List.of(RunState.PENDING, RunState.IN_PROGRESS, RunState.RETRYING))
                .setParameter("pipeline", pipeline)
                .setMaxResults(MAX_ASSESSED)
                .getResultStream()
                .map(row -> assess(now, (UUID) row[0], (String) row[1], (String) row[2], (RunState) row[3], (Instant) row[4], (Instant) row[5]))
                .toList();
    }

    private Assessment assess(Instant now, UUID id, String pipeline, String step, RunState state, Instant heartbeatAt, Instant updatedAt) {
        Kind kind = Kind.of(state).orElseThrow();
        Instant since = StalenessRules.clockStart(state, heartbeatAt, updatedAt);
        Duration inState = Duration.between(since, now);
        Duration threshold = rules.threshold(kind, pipeline, step);
        return new Assessment(id, pipeline, step, state, since, inState.toMillis(), threshold.toMillis(),
                Math.round(1000.0 * inState.toMillis() / threshold.toMillis()) / 1000.0,
                StalenessRules.health(inState, threshold), kind.reason.name());
    }

    /**
     * @param ratio     time in state over threshold (1.0 = stale)
     * @param becomes   the dead-letter reason the sweeper will record when it goes stale
     */
    public record Assessment(UUID runId, String pipeline, String step, RunState state, Instant since, long timeInStateMillis,
                             long thresholdMillis, double ratio, Health health, String becomes) {
    }
}
