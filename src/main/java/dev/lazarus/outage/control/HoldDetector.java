package dev.lazarus.outage.control;

import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.deadletter.entity.Fingerprint;
import dev.lazarus.deadletter.entity.StackSummary;
import dev.lazarus.pipeline.control.StepControls;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.pipeline.control.StepHealth;
import dev.lazarus.pipeline.entity.StepControl;
import dev.lazarus.platform.entity.Text;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Holds a step whose dependency is failing, before its runs burn their attempts: it watches what each delivery of each
 * step came to on this node ({@link StepHealth}), and when a step's retryable failures cross its threshold
 * ({@link HoldSettings}: so many in a row, or so large a share of enough deliveries within a window) it holds the step
 * ({@link StepControls#hold}) with the cause most of those failures share (their fingerprint, as a dead letter of
 * theirs would have it, and an example). Failures that are a message's own fault are never reported here, so they never
 * hold a step. Each node watches its own deliveries; the first to see the threshold crossed holds the step for all.
 */
@ApplicationScoped
public class HoldDetector implements StepHealth {

    private static final Logger LOG = Logger.getLogger(HoldDetector.class.getName());
    /** A step this node asked to hold is not asked again for this long (the database answers the same meanwhile). */
    private static final long QUIET_NANOS = Duration.ofSeconds(5).toNanos();

    @Inject
    HoldSettings.Reader settings;

    @Inject
    StepControls controls;

    @Inject
    StepStates states;

    @Resource
    ManagedExecutorService executor;

    private final Map<String, Watch> watches = new ConcurrentHashMap<>();

    @Override
    public void succeeded(StepDefinition step) {
        watch(step).add(System.nanoTime(), null, null);
    }

    @Override
    public void failedRetryably(StepDefinition step, Throwable failure) {
        HoldSettings now = settings.of(step);
        if (!now.enabled()) {
            return;
        }
        Cause cause = causeOf(failure);
        Optional<Trip> tripped = watch(step).add(System.nanoTime(), cause, now);
        if (tripped.isPresent() && states.isRunning(step)) {
            Trip trip = tripped.get();
            try {
                // not on the delivery's thread, nor in its transaction: the hold commits on its own, whatever the delivery does
                executor.execute(() -> hold(step, trip.cause(), trip.why(), now.coolDown()));
            } catch (RuntimeException refused) {
                hold(step, trip.cause(), trip.why(), now.coolDown()); // no executor (shutting down): here, then
            }
        }
    }

    /** The share of this node's deliveries of the step that failed retryably within its window, or empty if it had none. */
    public Optional<Double> failureRate(StepDefinition step) {
        Watch watch = watches.get(step.queue());
        return watch == null ? Optional.empty() : watch.rate(System.nanoTime(), settings.of(step).window());
    }

    /** Forgets what the step's deliveries came to: it was held, paused or resumed, and counts afresh. */
    public void reset(StepDefinition step) {
        Watch watch = watches.get(step.queue());
        if (watch != null) {
            watch.clear();
        }
    }

    private void hold(StepDefinition step, StepControl.Cause cause, String why, Duration coolDown) {
        try {
            if (controls.hold(step, cause, why, coolDown)) {
                states.refresh(); // this node obeys at once, not at its next reading
            }
        } catch (RuntimeException e) {
            // the database away, say: the next failure tries again
            LOG.log(Level.WARNING, "Could not hold step {0} of {1}: {2}", new Object[] {step.name(), step.pipeline(), String.valueOf(e)});
        }
    }

    private Watch watch(StepDefinition step) {
        return watches.computeIfAbsent(step.queue(), queue -> new Watch());
    }

    /** A failure's cause: its fingerprint, its exception's class and message. */
    /** A failure's cause, fingerprinted as its dead letter would be (the same groups the dead-letter list shows). */
    static Cause causeOf(Throwable failure) {
        try {
            Fingerprint fingerprint = Fingerprint.of(DeadLetterReason.RETRIES_EXHAUSTED, failure.getClass().getName(),
                    failure.getMessage(), StackSummary.of(failure));
            return new Cause(fingerprint.key(), failure.getClass().getName(), Text.truncate(String.valueOf(failure.getMessage()), 500));
        } catch (RuntimeException e) {
            return new Cause("unknown", failure.getClass().getName(), null); // never fail the delivery over this
        }
    }

    record Cause(String fingerprint, String exceptionClass, String example) {
    }

    /** A step's failures crossed its threshold: the cause to hold it with, and why, in words. */
    record Trip(StepControl.Cause cause, String why) {
    }

    /** The latest deliveries of one step on this node: when, and the cause if they failed. */
    static final class Watch {

        private static final int KEPT = 512;

        private final long[] times = new long[KEPT];
        private final Cause[] causes = new Cause[KEPT];
        private int next;
        private int size;
        private int inARow;
        private long askedAt;
        private boolean asked;

        /** Adds a delivery's outcome (a null cause: it succeeded); the trip, if this crossed the step's threshold. */
        synchronized Optional<Trip> add(long nanos, Cause failure, HoldSettings settings) {
            times[next] = nanos;
            causes[next] = failure;
            next = (next + 1) % KEPT;
            size = Math.min(KEPT, size + 1);
            if (failure == null) {
                inARow = 0;
                return Optional.empty();
            }
            inARow++;
            if (asked && nanos - askedAt < QUIET_NANOS) {
                return Optional.empty();
            }
            long since = nanos - settings.window().toNanos();
            int deliveries = 0;
            int failures = 0;
            Map<String, Integer> byCause = new HashMap<>();
            Map<String, Cause> example = new HashMap<>();
            for (int i = 1; i <= size; i++) {
                int at = Math.floorMod(next - i, KEPT);
                if (times[at] < since) {
                    break;
                }
                deliveries++;
                if (causes[at] != null) {
                    failures++;
                    byCause.merge(causes[at].fingerprint(), 1, Integer::sum);
                    example.putIfAbsent(causes[at].fingerprint(), causes[at]);
                }
            }
            boolean inARowTooMany = inARow >= settings.consecutiveFailures();
            boolean tooLargeAShare = deliveries >= settings.minDeliveries() && failures >= settings.failureRatio() * deliveries;
            if (!inARowTooMany && !tooLargeAShare) {
                return Optional.empty();
            }
            askedAt = nanos;
            asked = true;
            String dominant = byCause.entrySet().stream().max(Comparator.comparingInt(Map.Entry::getValue)).map(Map.Entry::getKey)
                    .orElse(failure.fingerprint());
            Cause shown = example.getOrDefault(dominant, failure);
            String why = inARowTooMany ? inARow + " deliveries in a row failed, the last with " + shown.exceptionClass() + ": " + shown.example()
                    : failures + " of " + deliveries + " deliveries within " + settings.window() + " failed, most with "
                            + shown.exceptionClass() + ": " + shown.example();
            return Optional.of(new Trip(new StepControl.Cause(dominant, shown.exceptionClass(), shown.example()), why));
        }

        synchronized Optional<Double> rate(long nanos, Duration window) {
            long since = nanos - window.toNanos();
            int deliveries = 0;
            int failures = 0;
            for (int i = 1; i <= size; i++) {
                int at = Math.floorMod(next - i, KEPT);
                if (times[at] < since) {
                    break;
                }
                deliveries++;
                failures += causes[at] == null ? 0 : 1;
            }
            return deliveries == 0 ? Optional.empty() : Optional.of((double) failures / deliveries);
        }

        synchronized void clear() {
            size = 0;
            inARow = 0;
            asked = false;
        }
    }
}
