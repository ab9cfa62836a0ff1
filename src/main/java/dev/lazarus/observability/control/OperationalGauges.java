package dev.lazarus.observability.control;

import dev.lazarus.deadletter.control.RequeueService;
import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.pipeline.control.Pipelines;
import dev.lazarus.platform.control.Metrics;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The gauges: registered once at startup, each reading the latest {@link OperationalReadings}. A scrape asks for
 * every gauge, and each node is scraped on its own, so the readings are cached for
 * {@code lazarus.metrics.refresh-after} (10 s): the database and the brokers see a few queries per node and
 * interval, however often and by how many scrapers they are scraped. A reading that fails leaves NaN (Prometheus
 * then has no value, which the alert rules treat as such) rather than failing the scrape.
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

    private final List<Meter> registered = new ArrayList<>();
    private OperationalReadings.Database database;
    private OperationalReadings.Queues queues;
    private long databaseReadAt;
    private long queuesReadAt;
    private boolean databaseRead;
    private boolean queuesRead;

    @PostConstruct
    void register() {
        metrics.declare(pipelines.all().stream().flatMap(p -> p.steps().stream()).map(st -> new String[] {st.pipeline(), st.name()}).toList(),
                List.of(RequeueService.MOVED, RequeueService.REDISPATCHED, RequeueService.REPLAYED_FROM_CONSOLE));
        for (DeadLetterReason reason : DeadLetterReason.values()) {
            gauge("lazarus.dead.letters.open", Tags.of("reason", reason.name()), g -> g.database().map(d -> d.openByReason().get(reason)));
        }
        gauge("lazarus.dead.letters.oldest.open.age.seconds", Tags.empty(), g -> g.database()
                .map(d -> d.oldestOpen() == null ? 0L : Duration.between(d.oldestOpen(), clock.instant()).toSeconds()));
        gauge("lazarus.requeue.jobs.running", Tags.empty(), g -> g.database().map(OperationalReadings.Database::runningJobs));
        gauge("lazarus.requeue.jobs.remaining", Tags.empty(), g -> g.database().map(OperationalReadings.Database::jobsRemaining));
        for (String timer : OperationalReadings.TIMERS) {
            // absent until the timer first finished (NaN): the rule "sweeper not running" covers that with absent()
            gauge("lazarus.timer.last.finished.timestamp.seconds", Tags.of("timer", timer), g -> g.database()
                    .map(d -> d.timersFinished().get(timer)).map(Instant::getEpochSecond));
        }
        for (String queue : readings.deadLetterQueues()) {
            gauge("lazarus.dlq.messages", Tags.of("queue", queue), g -> g.queues().map(q -> q.depth().get(queue)));
            gauge("lazarus.dlq.messages.unexplained", Tags.of("queue", queue), g -> g.queues().map(q -> q.unexplained().get(queue)));
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

    private Optional<OperationalReadings.Database> database() {
        synchronized (this) {
            if (!databaseRead || System.nanoTime() - databaseReadAt > refreshAfter.toNanos()) {
                try {
                    database = readings.database();
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "Could not read the gauges from the database: {0}", String.valueOf(e));
                    database = null;
                }
                databaseReadAt = System.nanoTime();
                databaseRead = true;
            }
            return Optional.ofNullable(database);
        }
    }

    private Optional<OperationalReadings.Queues> queues() {
        synchronized (this) {
            if (!queuesRead || System.nanoTime() - queuesReadAt > refreshAfter.toNanos()) {
                try {
                    queues = readings.queues();
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "Could not read the dead-letter queues for the gauges: {0}", String.valueOf(e));
                    queues = null;
                }
                queuesReadAt = System.nanoTime();
                queuesRead = true;
            }
            return Optional.ofNullable(queues);
        }
    }
}
