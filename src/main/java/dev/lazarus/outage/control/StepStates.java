package dev.lazarus.outage.control;

import dev.lazarus.pipeline.control.StepControls;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.pipeline.control.StepGate;
import dev.lazarus.pipeline.entity.StepControl;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The steps' states as this node last read them from the database (every 2 s, {@link #refresh}): what the automatic
 * hold, the gauges and the steps' API ask many times a second, without a query each. Reading them also makes this
 * node act on a change: the brokers' queues kept paused while a step is not running and resumed once when it runs
 * again ({@link dev.lazarus.pipeline.control.BrokerPauses},
 * through {@link StepControls}), a step that runs again ramped up ({@link StepGate}), its failures counted afresh.
 */
@ApplicationScoped
public class StepStates {

    private static final Logger LOG = Logger.getLogger(StepStates.class.getName());

    @Inject
    StepControls controls;

    @Inject
    dev.lazarus.pipeline.control.BrokerPauses brokerPauses;

    @Inject
    StepGate gate;

    @Inject
    HoldDetector detector;

    private volatile Map<StepDefinition, StepControl> current = Map.of();
    private final AtomicBoolean refreshing = new AtomicBoolean();
    /**
     * Steps that run again and whose queues this node has not seen resumed on every broker yet (besides those whose
     * row says no node has: {@link StepControl#queuesUpdated()}, which survives this node).
     */
    private final java.util.Set<StepDefinition> resumePending = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** The latest reading: each step of the deployment and its state. */
    public Map<StepDefinition, StepControl> current() {
        return current;
    }

    /** Whether the step's messages are delivered, as last read (a step not read yet runs). */
    public boolean isRunning(StepDefinition step) {
        StepControl state = current.get(step);
        return state == null || state.isRunning();
    }

    /**
     * Reads the states and makes this node agree: the brokers paused where a step is not running (and resumed where it
     * is), a step that runs again after not running ramps up, a step whose state changed counts its failures afresh.
     */
    public void refresh() {
        if (!refreshing.compareAndSet(false, true)) {
            return;
        }
        try {
            Map<StepDefinition, StepControl> read = controls.all();
            Map<StepDefinition, StepControl> before = current;
            for (Map.Entry<StepDefinition, StepControl> each : read.entrySet()) {
                StepDefinition step = each.getKey();
                StepControl now = each.getValue();
                StepControl was = before.get(step);
                if (was != null && was.state() != now.state()) {
                    detector.reset(step);
                    if (now.isRunning()) {
                        gate.rampUp(step); // not every consumer at once on a dependency that just came back
                        resumePending.add(step);
                    }
                }
                if (now.isRunning()) {
                    gate.open(step);
                } else {
                    gate.close(step); // what a consumer had buffered before the pause waits too
                }
                if (!now.isRunning()) {
                    // kept paused on every broker while the database says so (a broker restarted, a node that died first)
                    if (brokerPauses.apply(step, true) && !now.queuesUpdated()) {
                        controls.queuesUpdated(step, now.since());
                    }
                    resumePending.remove(step);
                    if (controls.current(step).isRunning()) {
                        // resumed since this reading (its resume reached the brokers first, and this pause came after):
                        // resumed again now, or the queue would stay paused under a running step, as if an operator had
                        // paused it in the console, until a state changes (a node started meanwhile would leave it so)
                        brokerPauses.apply(step, false);
                    }
                } else if ((resumePending.contains(step) || !now.queuesUpdated()) && brokerPauses.apply(step, false)) {
                    // resumed once, when Lazarus lets the step run again (seen here, or only in its row: the node that
                    // resumed it may have died before it told the brokers); a queue an operator paused in the Artemis
                    // console, outside Lazarus, under a step the brokers already follow, stays paused (Lazarus never
                    // fights the console)
                    resumePending.remove(step);
                    if (!now.queuesUpdated()) {
                        controls.queuesUpdated(step, now.since());
                    }
                }
            }
            current = Map.copyOf(read);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not read the steps' states; this node keeps what it read last: {0}", String.valueOf(e));
        } finally {
            refreshing.set(false);
        }
    }
}
