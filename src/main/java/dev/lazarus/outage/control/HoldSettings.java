package dev.lazarus.outage.control;

import dev.lazarus.pipeline.control.StepDefinition;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * When a step is held, and how it is probed: a global default for each setting, {@code lazarus.hold.<key>}, and one per
 * step, {@code lazarus.hold.<pipeline>.<step>.<key>} (the step's wins). Read again every {@value #REREAD_SECONDS} s, so
 * a change of the system properties needs no redeployment.
 *
 * @param enabled             whether the step is held at all ({@code enabled}, true)
 * @param consecutiveFailures held after this many retryable failures in a row ({@code consecutive-failures}, 10)
 * @param failureRatio        or when at least this share ({@code failure-ratio}, 0.9) ...
 * @param minDeliveries       ... of at least this many deliveries ({@code min-deliveries}, 20) ...
 * @param window              ... within this long ({@code window}, 30 s) failed retryably
 * @param coolDown            the first probe this long after the hold ({@code cool-down}, 30 s), each next twice as long ...
 * @param coolDownMax         ... up to this ({@code cool-down-max}, 2 min: a dependency back is found within 2 minutes)
 * @param probeTimeout        a probe that takes longer has failed ({@code probe-timeout}, 10 s)
 */
public record HoldSettings(boolean enabled, int consecutiveFailures, double failureRatio, int minDeliveries, Duration window,
                           Duration coolDown, Duration coolDownMax, Duration probeTimeout) {

    static final int REREAD_SECONDS = 10;

    /** The settings of each step, read at most every {@value #REREAD_SECONDS} s. */
    @ApplicationScoped
    public static class Reader {

        private record Read(HoldSettings settings, long atNanos) {
        }

        private final Map<String, Read> read = new ConcurrentHashMap<>();

        public HoldSettings of(StepDefinition step) {
            String key = step.pipeline() + "." + step.name();
            Read last = read.get(key);
            long now = System.nanoTime();
            if (last == null || now - last.atNanos() > REREAD_SECONDS * 1_000_000_000L) {
                last = new Read(readNow(step), now);
                read.put(key, last);
            }
            return last.settings();
        }

        private static HoldSettings readNow(StepDefinition step) {
            Config config = ConfigProvider.getConfig();
            String own = "lazarus.hold." + step.pipeline() + "." + step.name() + ".";
            return new HoldSettings(
                    value(config, own, "enabled", Boolean.class, true),
                    Math.max(1, value(config, own, "consecutive-failures", Integer.class, 10)),
                    Math.min(1.0, Math.max(0.0, value(config, own, "failure-ratio", Double.class, 0.9))),
                    Math.max(1, value(config, own, "min-deliveries", Integer.class, 20)),
                    positive(value(config, own, "window", Duration.class, Duration.ofSeconds(30)), Duration.ofSeconds(30)),
                    positive(value(config, own, "cool-down", Duration.class, Duration.ofSeconds(30)), Duration.ofSeconds(30)),
                    positive(value(config, own, "cool-down-max", Duration.class, Duration.ofMinutes(2)), Duration.ofMinutes(2)),
                    positive(value(config, own, "probe-timeout", Duration.class, Duration.ofSeconds(10)), Duration.ofSeconds(10)));
        }

        private static <T> T value(Config config, String own, String key, Class<T> type, T otherwise) {
            return config.getOptionalValue(own + key, type).or(() -> config.getOptionalValue("lazarus.hold." + key, type)).orElse(otherwise);
        }

        private static Duration positive(Duration value, Duration otherwise) {
            return value.isNegative() || value.isZero() ? otherwise : value;
        }
    }
}
