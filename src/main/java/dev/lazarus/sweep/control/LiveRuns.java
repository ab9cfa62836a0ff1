package dev.lazarus.sweep.control;

import dev.lazarus.pipeline.control.Pipelines;
import dev.lazarus.pipeline.control.StepControls;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.pipeline.entity.StepControl;
import dev.lazarus.pipeline.entity.RunState;
import dev.lazarus.sweep.control.StalenessRules.Health;
import dev.lazarus.sweep.control.StalenessRules.Kind;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The staleness view: every live run with how long it has been in its state, its threshold and its health,
 * so operators see trouble coming before the sweeper turns it into a dead letter; and how many runs are at risk
 * (at warning or stale) per step, which the gauges and the dashboard show.
 */
@Stateless
public class LiveRuns {

    /** The view looks at this many live runs at most, the longest-waiting first. */
    public static final int MAX_ASSESSED = 10_000;

    /** The counts give up after this long: a slow database must not hold a page or the gauges' reading thread. */
    private static final int QUERY_TIMEOUT_MS = 5_000;

    @PersistenceContext
    EntityManager em;

    @Inject
    StalenessRules rules;

    @Inject
    Pipelines pipelines;

    @Inject
    StepControls stepControls;

    public List<Assessment> assess(Instant now, String pipeline) {
        Map<String, StepControl> steps = new HashMap<>();
        stepControls.all().forEach((step, state) -> steps.put(step.pipeline() + "/" + step.name(), state));
        return em.createQuery("select r.id, r.pipeline, r.currentStep, r.state, r.heartbeatAt, r.updatedAt from Run r"
                        + " where r.state in :live and (:pipeline is null or r.pipeline = :pipeline) order by r.updatedAt, r.id", Object[].class)
                .setParameter("live", List.of(RunState.PENDING, RunState.IN_PROGRESS, RunState.RETRYING))
                .setParameter("pipeline", pipeline)
                .setMaxResults(MAX_ASSESSED)
                .getResultStream()
                .map(row -> assess(now, (UUID) row[0], (String) row[1], (String) row[2], (RunState) row[3], (Instant) row[4], (Instant) row[5],
                        steps.get(row[1] + "/" + row[2])))
                .toList();
    }

    /**
     * One page of the view, as the API and the admin page show it: the assessed runs of {@code pipeline} (null: all),
     * counted by health, those of {@code health} (null: all) most urgent first (the highest share of their threshold).
     */
    public View view(Instant now, String pipeline, Health health, int offset, int limit) {
        List<Assessment> all = assess(now, pipeline);
        Map<Health, Long> counts = new EnumMap<>(Health.class);
        for (Health h : Health.values()) {
            counts.put(h, 0L);
        }
        all.forEach(a -> counts.merge(a.health(), 1L, Long::sum));
        List<Assessment> matching = all.stream()
                .filter(a -> health == null || a.health() == health)
                .sorted(Comparator.comparingDouble(Assessment::ratio).reversed())
                .toList();
        int from = Math.min(Math.max(0, offset), matching.size());
        List<Assessment> page = matching.subList(from, (int) Math.min((long) from + limit, matching.size()));
        return new View(page, matching.size(), counts, all.size() >= MAX_ASSESSED);
    }

    /**
     * Live runs at warning and stale per deployed step, counted in the database by the sweeper's own conditions
     * ({@link PastThreshold}): one query per kind of staleness, an index range scan over the runs past 80 % of the
     * shortest threshold, reading no payload. Unlike {@link #assess} it is not bounded by {@link #MAX_ASSESSED}: it counts.
     */
    public AtRisk atRisk(Instant now) {
        Map<AtRisk.Key, Long> counts = new HashMap<>();
        Map<StepDefinition, StepControl> states = stepControls.all();
        for (Kind kind : Kind.values()) {
            var warning = PastThreshold.of(rules, pipelines, states, kind, now, StalenessRules.WARNING_RATIO, "w");
            var stale = PastThreshold.of(rules, pipelines, states, kind, now, 1.0, "s");
            if (warning.isEmpty() || stale.isEmpty()) {
                continue;
            }
            // one statement, so one snapshot: the stale runs are always among those at risk
            var query = em.createQuery("select r.pipeline, r.currentStep, count(r), sum(case when " + stale.get().condition()
                            + " then 1 else 0 end) from Run r where " + warning.get().condition() + " group by r.pipeline, r.currentStep",
                    Object[].class).setHint("jakarta.persistence.query.timeout", QUERY_TIMEOUT_MS);
            stale.get().bind(warning.get().bind(query)).getResultList().forEach(row -> {
                long atRisk = ((Number) row[2]).longValue();
                long past = ((Number) row[3]).longValue();
                counts.merge(new AtRisk.Key((String) row[0], (String) row[1], Health.WARNING), atRisk - past, Long::sum);
                counts.merge(new AtRisk.Key((String) row[0], (String) row[1], Health.STALE), past, Long::sum);
            });
        }
        return new AtRisk(Map.copyOf(counts));
    }

    /**
     * One run, judged as the sweeper judges it: a run waiting at a step that is paused or held is not waiting for a
     * consumer (healthy, its time not counted), and its clock starts again when its step runs again.
     */
    private Assessment assess(Instant now, UUID id, String pipeline, String step, RunState state, Instant heartbeatAt, Instant updatedAt,
                              StepControl stepState) {
        Kind kind = Kind.of(state).orElseThrow();
        Instant since = StalenessRules.clockStart(state, heartbeatAt, updatedAt, stepState == null ? null : stepState.resumedAt());
        Duration inState = Duration.between(since, now);
        Duration threshold = rules.threshold(kind, pipeline, step);
        String stepIs = stepState == null ? StepControl.State.RUNNING.name() : stepState.state().name();
        if (stepState != null && !stepState.isRunning()) {
            return new Assessment(id, pipeline, step, state, since, inState.toMillis(), threshold.toMillis(), 0.0, Health.HEALTHY,
                    kind.reason.name(), stepIs);
        }
        return new Assessment(id, pipeline, step, state, since, inState.toMillis(), threshold.toMillis(),
                Math.round(1000.0 * inState.toMillis() / threshold.toMillis()) / 1000.0,
                StalenessRules.health(inState, threshold), kind.reason.name(), stepIs);
    }

    /**
     * @param ratio     time in state over threshold (1.0 = stale)
     * @param becomes   the dead-letter reason the sweeper will record when it goes stale
     * @param stepState the state of the step it is at ({@code RUNNING}, {@code PAUSED}, {@code HELD}): a run waiting at a
     *                  step that is not running waits on the step, and its time is not counted
     */
    public record Assessment(UUID runId, String pipeline, String step, RunState state, Instant since, long timeInStateMillis,
                             long thresholdMillis, double ratio, Health health, String becomes, String stepState) {
    }

    /**
     * @param items     this page of the runs of the health asked for, most urgent first
     * @param total     how many runs of that health were assessed
     * @param counts    the assessed runs per health (every health, 0 for none)
     * @param truncated more live runs exist than the view assesses ({@value #MAX_ASSESSED})
     */
    public record View(List<Assessment> items, long total, Map<Health, Long> counts, boolean truncated) {
    }

    /** Live runs at warning and at stale, per deployed step; a step and health it does not name has none. */
    public record AtRisk(Map<Key, Long> counts) {

        public record Key(String pipeline, String step, Health health) {
        }

        public long count(String pipeline, String step, Health health) {
            return counts.getOrDefault(new Key(pipeline, step, health), 0L);
        }

        public long total(Health health) {
            return counts.entrySet().stream().filter(e -> e.getKey().health() == health).mapToLong(Map.Entry::getValue).sum();
        }

        /** At warning and stale together: the runs the sweeper will dead-letter unless they move on. */
        public long total() {
            return total(Health.WARNING) + total(Health.STALE);
        }

        /** The steps with runs at risk, those with the most stale runs first, then the most at warning. */
        public List<Step> steps() {
            return counts.keySet().stream()
                    .map(k -> new Step(k.pipeline(), k.step(), count(k.pipeline(), k.step(), Health.WARNING),
                            count(k.pipeline(), k.step(), Health.STALE)))
                    .distinct()
                    .filter(step -> step.warning() + step.stale() > 0)
                    .sorted(Comparator.comparingLong(Step::stale).thenComparingLong(Step::warning).reversed()
                            .thenComparing(Step::pipeline).thenComparing(Step::step))
                    .toList();
        }

        /** One step's runs at risk. */
        public record Step(String pipeline, String step, long warning, long stale) {
        }
    }
}
