package dev.lazarus.observability.control;

import dev.lazarus.deadletter.boundary.RequeueJobRecovery;
import dev.lazarus.deadletter.boundary.RetentionTimer;
import dev.lazarus.deadletter.control.DeadLetterQueues;
import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.deadletter.entity.DeadLetterStatus;
import dev.lazarus.deadletter.entity.BulkJob;
import dev.lazarus.pipeline.control.PipelineDefinition;
import dev.lazarus.pipeline.control.Pipelines;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.platform.control.BrokerManagement;
import dev.lazarus.platform.control.Brokers;
import dev.lazarus.platform.control.TimerRuns;
import dev.lazarus.sweep.control.LiveRuns;
import dev.lazarus.sweep.control.Sweeps;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Clock;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Reads what the gauges show: a few aggregate queries (the runs at risk among them), and two message counts per
 * dead-letter queue and broker.
 */
@Stateless
public class OperationalReadings {

    /** A gauge's query gives up after this long: a slow database must not hold the reading thread. */
    private static final String TIMEOUT = "jakarta.persistence.query.timeout";
    private static final int QUERY_TIMEOUT_MS = 5_000;

    private static final Logger LOG = Logger.getLogger(OperationalReadings.class.getName());

    @PersistenceContext
    EntityManager em;

    @Inject
    Pipelines pipelines;

    @Inject
    Brokers brokers;

    @Inject
    BrokerManagement management;

    @Inject
    TimerRuns timerRuns;

    @Inject
    LiveRuns liveRuns;

    @Inject
    Clock clock;

    /** The installation's persistent timers, each of which records when it last finished. */
    public static final List<String> TIMERS = List.of(Sweeps.NAME, RetentionTimer.NAME, RequeueJobRecovery.SILENT_CHECK);

    /**
     * From the database: the same on every node. Bulk jobs running and what they have left, by action.
     *
     * @param runsAtRisk live runs at warning and stale per step, counted by the sweeper's own conditions (a query per kind
     *                   of staleness whose cost follows the runs past 80 % of the shortest threshold, not all runs)
     */
    public record Database(Map<DeadLetterReason, Long> openByReason, Instant oldestOpen, Map<BulkJob.Action, Long> runningJobs,
                           Map<BulkJob.Action, Long> jobsRemaining, Map<String, Instant> timersFinished, LiveRuns.AtRisk runsAtRisk) {
    }

    /** Per dead-letter queue, summed over the brokers; -1 where a broker did not answer. */
    public record Queues(Map<String, Long> depth, Map<String, Long> unexplained) {
    }

    public Database database() {
        Map<DeadLetterReason, Long> open = new EnumMap<>(DeadLetterReason.class);
        for (DeadLetterReason reason : DeadLetterReason.values()) {
            open.put(reason, 0L);
        }
        em.createQuery("select d.reason, count(d) from DeadLetter d where d.status in :open group by d.reason", Object[].class)
                .setParameter("open", DeadLetterStatus.OPEN).setHint(TIMEOUT, QUERY_TIMEOUT_MS)
                .getResultList().forEach(row -> open.put((DeadLetterReason) row[0], ((Number) row[1]).longValue()));
        Instant oldest = em.createQuery("select min(d.createdAt) from DeadLetter d where d.status in :open", Instant.class)
                .setParameter("open", DeadLetterStatus.OPEN).setHint(TIMEOUT, QUERY_TIMEOUT_MS).getSingleResult();
        Map<BulkJob.Action, Long> running = new EnumMap<>(BulkJob.Action.class);
        Map<BulkJob.Action, Long> remaining = new EnumMap<>(BulkJob.Action.class);
        for (BulkJob.Action action : BulkJob.Action.values()) {
            running.put(action, 0L);
            remaining.put(action, 0L);
        }
        em.createQuery("select j.action, count(j), coalesce(sum(j.total - j.done - j.skipped), 0) from BulkJob j"
                        + " where j.state = :running group by j.action", Object[].class)
                .setParameter("running", BulkJob.State.RUNNING).setHint(TIMEOUT, QUERY_TIMEOUT_MS).getResultList()
                .forEach(row -> {
                    running.put((BulkJob.Action) row[0], ((Number) row[1]).longValue());
                    remaining.put((BulkJob.Action) row[0], Math.max(0, ((Number) row[2]).longValue()));
                });
        Map<String, Instant> timers = new HashMap<>();
        for (String timer : TIMERS) {
            timerRuns.finishedAt(timer).ifPresent(at -> timers.put(timer, at));
        }
        return new Database(open, oldest, running, remaining, timers, liveRuns.atRisk(clock.instant()));
    }

    /** Asks every broker; outside a transaction (the management requests are not part of any). */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public Queues queues() {
        Map<String, Long> depth = new LinkedHashMap<>();
        Map<String, Long> unexplained = new LinkedHashMap<>();
        for (String queue : deadLetterQueues()) {
            long all = 0;
            long unmarked = 0;
            for (Brokers.Broker broker : brokers.all()) {
                try {
                    all += count(broker, queue, null);
                    unmarked += count(broker, queue, DeadLetterQueues.unmarked());
                } catch (RuntimeException e) {
                    LOG.log(Level.FINE, "Could not count the messages of {0} on broker {1}: {2}", new Object[] {queue, broker, e});
                    all = -1;
                    unmarked = -1;
                    break;
                }
            }
            depth.put(queue, all);
            unexplained.put(queue, unmarked);
        }
        return new Queues(depth, unexplained);
    }

    public List<String> deadLetterQueues() {
        return pipelines.all().stream().map(PipelineDefinition::steps).flatMap(List::stream)
                .map(StepDefinition::deadLetterQueue).distinct().toList();
    }

    private long count(Brokers.Broker broker, String queue, String filter) {
        return management.number(broker, "queue." + queue, "countMessages", filter);
    }
}
