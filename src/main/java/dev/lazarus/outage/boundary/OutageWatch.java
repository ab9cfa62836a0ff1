package dev.lazarus.outage.boundary;

import dev.lazarus.outage.control.Probes;
import dev.lazarus.outage.control.QueueFigures;
import dev.lazarus.outage.control.StepStates;
import dev.lazarus.pipeline.control.StepControls;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.pipeline.entity.StepControl;
import dev.lazarus.platform.control.TimerRuns;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.ToDoubleFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Every node's watch over the steps' states, every 2 seconds (a timer of its own, not persistent: every node runs it):
 * it reads the states from the database and makes this node and the brokers agree ({@link StepStates}), reads the step
 * queues' figures ({@link QueueFigures}), and probes a held step whose probe is due, if this node claims it first (one
 * node probes at a time). It also registers the steps' gauges, which read what it read.
 */
@Singleton
@Startup
@DependsOn("SchemaMigration")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class OutageWatch {

    private static final Logger LOG = Logger.getLogger(OutageWatch.class.getName());
    /** A node that claimed a probe and has not finished it in this long (it died, say) leaves it to another. */
    private static final Duration CLAIM_TIMEOUT = Duration.ofMinutes(2);

    @Inject
    StepControls controls;

    @Inject
    StepStates states;

    @Inject
    QueueFigures figures;

    @Inject
    Probes probes;

    @Inject
    MeterRegistry registry;

    @Inject
    dev.lazarus.pipeline.control.Pipelines pipelines;

    @Inject
    Clock clock;

    @jakarta.annotation.Resource
    jakarta.enterprise.concurrent.ManagedExecutorService executor;

    private final AtomicBoolean watching = new AtomicBoolean();
    /** Steps this node is probing now: a probe takes up to its timeout, and runs beside the watch, not in it. */
    private final java.util.Set<StepDefinition> probing = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final List<Meter> registered = new ArrayList<>();

    @PostConstruct
    void start() {
        try {
            controls.ensureEveryStep();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not write the steps' states at start-up; the watch tries again: {0}", String.valueOf(e));
        }
        states.refresh();
        for (StepDefinition step : pipelines.all().stream().flatMap(p -> p.steps().stream()).toList()) {
            Tags tags = Tags.of("pipeline", step.pipeline(), "step", step.name());
            for (StepControl.State state : StepControl.State.values()) {
                gauge("lazarus.step.state", tags.and("state", state.name()), w -> w.stateOf(step) == state ? 1 : 0);
            }
            gauge("lazarus.step.paused.seconds", tags, w -> w.secondsIn(step, StepControl.State.PAUSED));
            gauge("lazarus.step.held.seconds", tags, w -> w.secondsIn(step, StepControl.State.HELD));
            gauge("lazarus.step.waiting", tags, w -> {
                long waiting = w.figures.of(step).waiting();
                return waiting < 0 ? Double.NaN : waiting;
            });
        }
    }

    @PreDestroy
    void stop() {
        registered.forEach(registry::remove);
    }

    @Schedule(hour = "*", minute = "*", second = "*/2", persistent = false, info = "Lazarus outage watch: step states, probes")
    public void watch() {
        if (!watching.compareAndSet(false, true)) {
            return; // the last watch is still reading
        }
        try {
            if (states.current().isEmpty()) {
                controls.ensureEveryStep();
            }
            states.refresh();
            figures.refresh();
            for (Map.Entry<StepDefinition, StepControl> each : states.current().entrySet()) {
                StepControl state = each.getValue();
                StepDefinition step = each.getKey();
                if (state.state() == StepControl.State.HELD && state.nextProbeAt() != null && !state.nextProbeAt().isAfter(clock.instant())
                        && !probing.contains(step) && controls.claimProbe(step, TimerRuns.NODE, CLAIM_TIMEOUT)) {
                    probeBeside(step);
                }
            }
        } catch (RuntimeException e) {
            // never let the timer stop: the next watch comes in 2 s
            LOG.log(Level.WARNING, "The outage watch failed; it looks again in 2 s: {0}", String.valueOf(e));
        } finally {
            watching.set(false);
        }
    }

    /**
     * The probe on a thread of its own, so that the watch goes on reading the states every 2 s meanwhile (a pause made
     * on another node reaches this one's consumers within seconds, whatever is being probed here).
     */
    private void probeBeside(StepDefinition step) {
        probing.add(step);
        Runnable probe = () -> {
            try {
                probes.probe(step);
                states.refresh(); // this node obeys the outcome at once
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "The probe of step {0} of {1} failed to record its outcome; its claim lapses and it is"
                        + " probed again: {2}", new Object[] {step.name(), step.pipeline(), String.valueOf(e)});
            } finally {
                probing.remove(step);
            }
        };
        try {
            executor.submit(probe);
        } catch (java.util.concurrent.RejectedExecutionException busy) {
            probe.run();
        }
    }

    private StepControl.State stateOf(StepDefinition step) {
        StepControl state = states.current().get(step);
        return state == null ? StepControl.State.RUNNING : state.state();
    }

    private double secondsIn(StepDefinition step, StepControl.State wanted) {
        StepControl state = states.current().get(step);
        return state == null || state.state() != wanted ? 0 : Math.max(0, Duration.between(state.since(), clock.instant()).toSeconds());
    }

    private void gauge(String name, Tags tags, ToDoubleFunction<OutageWatch> value) {
        registry.gauge(name, tags, this, value);
        registered.add(registry.get(name).tags(tags).meter());
    }
}
