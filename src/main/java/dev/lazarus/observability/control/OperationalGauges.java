package dev.lazarus.observability.control;

import dev.lazarus.deadletter.control.RequeueService;
import dev.lazarus.deadletter.entity.BulkJob;
import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.pipeline.control.Pipelines;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.platform.control.Metrics;
import dev.lazarus.sweep.control.StalenessRules.Health;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The gauges: registered once at startup, each reading the latest {@link OperationalReadings}. A scrape asks for
 * every gauge, and each node is scraped on its own, so the readings are kept for
 * {@code lazarus.metrics.refresh-after} (10 s) and refreshed in the background: the database and the brokers see a
 * few queries per node and interval, however often they are scraped, and a scrape never waits for an unreachable
 * database or broker. A reading that failed or is too old shows as NaN rather than failing the scrape, and
 * {@code lazarus_readings_ok} (0) says the source is not being read.
 *
 * <p>The database's gauges are the installation's, not the node's: every node reports the same value, so rules
 * aggregate them with {@code max}, not {@code sum}.
 */
@Singleton
@Startup
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class OperationalGauges {

    private static final Logger LOG = Logger.getLogger(OperationalGauges.class.getName());

    @Inject
    MeterRegistry registry;

    @Inject
    OperationalReadings readings;

    @Inject
    Metrics metrics;

    @Inject
    Pipelines pipelines;

    @Inject
    Clock clock;

    @Inject
    @ConfigProperty(name = "lazarus.metrics.refresh-after", defaultValue = "PT10S")
    Duration refreshAfter;

    @Resource
    ManagedExecutorService executor;

    private final List<Meter> registered = new ArrayList<>();
    private Reading<OperationalReadings.Database> database;
    private Reading<OperationalReadings.Queues> queues;

    @PostConstruct
    void register() {
        database = new Reading<>("the database", () -> readings.database());
        queues = new Reading<>("the dead-letter queues", () -> readings.queues());
        gauge("lazarus.readings.ok", Tags.of("source", "database"), g -> Optional.of(g.database.ok() ? 1 : 0));
        gauge("lazarus.readings.ok", Tags.of("source", "brokers"), g -> Optional.of(g.queues.ok() ? 1 : 0));
        metrics.declare(pipelines.all().stream().flatMap(p -> p.steps().stream()).map(st -> new String[] {st.pipeline(), st.name()}).toList(),
                List.of(RequeueService.MOVED, RequeueService.REDISPATCHED, RequeueService.REPLAYED_FROM_CONSOLE,
                        RequeueService.Fix.EDIT_PAYLOAD.method(), RequeueService.Fix.COMPLETE_STEP.method(), RequeueService.Fix.SKIP_STEP.method()));
        for (DeadLetterReason reason : DeadLetterReason.values()) {
            gauge("lazarus.dead.letters.open", Tags.of("reason", reason.name()), g -> g.database.get().map(d -> d.openByReason().get(reason)));
        }
        gauge("lazarus.dead.letters.oldest.open.age.seconds", Tags.empty(), g -> g.database.get()
                .map(d -> d.oldestOpen() == null ? 0L : Duration.between(d.oldestOpen(), clock.instant()).toSeconds()));
        metrics.declareBulkJobs(Arrays.stream(BulkJob.Action.values()).map(BulkJob.Action::apiName).toList());
        metrics.declareRootCauses(Arrays.stream(dev.lazarus.deadletter.entity.RootCause.values()).map(Enum::name).toList());
        for (BulkJob.Action action : BulkJob.Action.values()) {
            Tags tags = Tags.of("action", action.apiName());
            gauge("lazarus.bulk.jobs.running", tags, g -> g.database.get().map(d -> d.runningJobs().get(action)));
            gauge("lazarus.bulk.jobs.remaining", tags, g -> g.database.get().map(d -> d.jobsRemaining().get(action)));
        }
        for (String timer : OperationalReadings.TIMERS) {
            // 0 until the timer first finishes, so "no sweep for 5 minutes" also fires for a sweeper that never ran
            gauge("lazarus.timer.last.finished.timestamp.seconds", Tags.of("timer", timer), g -> g.database.get()
                    .map(d -> Optional.ofNullable(d.timersFinished().get(timer)).map(Instant::getEpochSecond).orElse(0L)));
        }
        for (StepDefinition step : pipelines.all().stream().flatMap(p -> p.steps().stream()).toList()) {
            for (Health health : List.of(Health.WARNING, Health.STALE)) {
                // the deployment's steps and two healths: a fixed set of series, whatever the runs are named
                gauge("lazarus.runs.at.risk", Tags.of("pipeline", step.pipeline(), "step", step.name(), "health", health.name().toLowerCase(Locale.ROOT)),
                        g -> g.database.get().map(d -> d.runsAtRisk().count(step.pipeline(), step.name(), health)));
            }
        }
        for (String queue : readings.deadLetterQueues()) {
            gauge("lazarus.dlq.messages", Tags.of("queue", queue), g -> g.queues.get().map(q -> q.depth().get(queue)));
            gauge("lazarus.dlq.messages.unexplained", Tags.of("queue", queue), g -> g.queues.get().map(q -> q.unexplained().get(queue)));
        }
    }

    /** A redeploy gets a new registry entry; the old gauges would read this instance after it is gone. */
    @PreDestroy
    void unregister() {
        registered.forEach(registry::remove);
    }

    private void gauge(String name, Tags tags, Function<OperationalGauges, Optional<? extends Number>> reading) {
        ToDoubleFunction<OperationalGauges> value = gauges -> {
            try {
                return reading.apply(gauges).filter(n -> n.doubleValue() >= 0).map(Number::doubleValue).orElse(Double.NaN);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Could not read the gauge " + name + ": " + e, e);
                return Double.NaN;
            }
        };
        registry.gauge(name, tags, this, value);
        registered.add(registry.get(name).tags(tags).meter());
    }

    /**
     * One source's latest reading. A scrape never waits for it: a stale reading starts a refresh on the managed
     * executor (one at a time) and the scrape gets what is there. A reading older than three refresh periods (the
     * source failed or hangs) is not shown (NaN), and {@code lazarus_readings_ok} says so.
     */
    private final class Reading<T> {

        private final String source;
        private final Supplier<T> reader;
        private final AtomicBoolean refreshing = new AtomicBoolean();
        private volatile T value;
        private volatile long readAt;
        private volatile boolean read;

        Reading(String source, Supplier<T> reader) {
            this.source = source;
            this.reader = reader;
        }

        Optional<T> get() {
            long now = System.nanoTime();
            if ((!read || now - readAt > refreshAfter.toNanos()) && refreshing.compareAndSet(false, true)) {
                try {
                    executor.execute(this::refresh);
                } catch (RuntimeException e) {
                    refreshing.set(false); // refused (shutting down): the next scrape tries again
                }
            }
            return ok() ? Optional.ofNullable(value) : Optional.empty();
        }

        boolean ok() {
            return read && System.nanoTime() - readAt <= 3 * refreshAfter.toNanos();
        }

        private void refresh() {
            try {
                value = reader.get();
                readAt = System.nanoTime();
                read = true;
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Could not read {0} for the gauges: {1}", new Object[] {source, String.valueOf(e)});
            } finally {
                refreshing.set(false);
            }
        }
    }
}
