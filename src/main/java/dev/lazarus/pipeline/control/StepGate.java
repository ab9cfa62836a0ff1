package dev.lazarus.pipeline.control;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * How many of a step's deliveries run at once on this node while the step ramps up after a hold: one, then two, four,
 * eight... doubling every quarter of {@code lazarus.hold.ramp-up} (20 s), so a dependency that just came back is not
 * met by every consumer at once. Outside a ramp-up it counts nothing: a delivery passes at the cost of one map lookup.
 * A delivery never waits longer than one doubling: the gate slows a stampede, it never stops a step.
 */
@ApplicationScoped
public class StepGate {

    /** Passes of a step while it ramps up: when it started, and how many deliveries are in. */
    private record Ramp(long startedNanos, AtomicInteger in) {
    }

    /** A delivery's way in: closed when the delivery is done. */
    public interface Pass extends AutoCloseable {
        @Override
        void close();
    }

    private static final Pass OPEN = () -> { };

    private final Map<String, Ramp> ramps = new ConcurrentHashMap<>();
    /** The queues of steps that are paused or held, as this node last read the steps' states. */
    private final java.util.Set<String> closed = ConcurrentHashMap.newKeySet();

    @Inject
    @ConfigProperty(name = "lazarus.hold.ramp-up", defaultValue = "PT20S")
    Duration rampUp;

    /** The step runs again after a hold: its deliveries on this node ramp up from one. */
    public void rampUp(StepDefinition step) {
        if (!rampUp.isZero() && !rampUp.isNegative()) {
            ramps.put(step.queue(), new Ramp(System.nanoTime(), new AtomicInteger()));
        }
    }

    /**
     * The step is paused or held: a delivery that reaches this node anyway (one a consumer had buffered before its
     * queue was paused on the broker) does not run; see {@link StepProcessor}.
     */
    public void close(StepDefinition step) {
        closed.add(step.queue());
    }

    /** The step runs. */
    public void open(StepDefinition step) {
        closed.remove(step.queue());
    }

    /** Whether the step is paused or held, as this node last read it: one lookup in a set that is empty but in an outage. */
    public boolean isClosed(StepDefinition step) {
        return !closed.isEmpty() && closed.contains(step.queue());
    }

    /** Lets a delivery of the step in (at once, unless the step is ramping up); close what it returns when it is done. */
    public Pass enter(StepDefinition step) throws InterruptedException {
        Ramp ramp = ramps.get(step.queue());
        if (ramp == null) {
            return OPEN;
        }
        long doubling = Math.max(1, rampUp.toNanos() / 4);
        long arrived = System.nanoTime();
        while (true) {
            long elapsed = System.nanoTime() - ramp.startedNanos();
            if (elapsed >= rampUp.toNanos()) {
                ramps.remove(step.queue(), ramp);
                return OPEN;
            }
            int allowed = 1 << (int) Math.min(20, elapsed / doubling);
            int in = ramp.in().get();
            if (in < allowed || System.nanoTime() - arrived > doubling) {
                if (ramp.in().compareAndSet(in, in + 1)) {
                    return ramp.in()::decrementAndGet;
                }
                continue; // another delivery got in first: look again
            }
            Thread.sleep(20);
        }
    }
}
