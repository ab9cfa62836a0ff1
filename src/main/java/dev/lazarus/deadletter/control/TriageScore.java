package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.deadletter.entity.DeadLetterReason.Severity;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Where an open dead letter ranks in the investigation queue, and why: the one formula, used both to sort in the
 * database ({@link #sql}) and to explain each entry ({@link #of}). The higher the score, the sooner to look at it.
 *
 * <pre>
 * score = severity + priority + age + cause group + held
 *   severity    CRITICAL 40, ERROR 30, WARNING 15, INFO 5             (the reason's, from the registry)
 *   priority    2 × (8 − the reason's priority), at least 0            (priority 1 → 14 … 7 → 2)
 *   age         open ≥ 24 h 30, ≥ 4 h 20, ≥ 1 h 12, ≥ 15 min 6, else 0
 *   cause group open dead letters sharing its cause (fingerprint): ≥ 1000 → 25, ≥ 100 → 20, ≥ 10 → 12, ≥ 2 → 5, else 0
 *   held        20 if its step is held by Lazarus (its dependency is failing), else 0
 * </pre>
 *
 * Equal scores: the oldest first. Every part is a step function of a value the database has, so the order is computed
 * by one query with the same thresholds and the page explains exactly what it sorted by. Age and group size weigh
 * less than severity on purpose: an old INFO never outranks a fresh CRITICAL of the same group and hold, but a large
 * group or a held step can lift an ERROR above a lone CRITICAL, because fixing it brings back many runs at once.
 */
public record TriageScore(int score, List<Part> parts) {

    public static final Map<Severity, Integer> SEVERITY_POINTS = Map.of(Severity.CRITICAL, 40, Severity.ERROR, 30,
            Severity.WARNING, 15, Severity.INFO, 5);
    /** Age thresholds and their points, the largest first. */
    static final List<Step<Duration>> AGE = List.of(new Step<>(Duration.ofHours(24), 30), new Step<>(Duration.ofHours(4), 20),
            new Step<>(Duration.ofHours(1), 12), new Step<>(Duration.ofMinutes(15), 6));
    /** Cause group size thresholds and their points, the largest first. */
    static final List<Step<Long>> GROUP = List.of(new Step<>(1000L, 25), new Step<>(100L, 20), new Step<>(10L, 12), new Step<>(2L, 5));
    static final int HELD_POINTS = 20;

    /** A threshold of a step function: from {@code atLeast} on, {@code points}. */
    record Step<T>(T atLeast, int points) {
    }

    /** One factor of a score: its name ({@code severity}, {@code priority}, {@code age}, {@code causeGroup}, {@code held}), its points, why. */
    public record Part(String factor, int value, String why) {
    }

    public TriageScore {
        parts = List.copyOf(parts);
    }

    /** The score of an open dead letter of {@code reason}, recorded at {@code createdAt}, in a cause group of {@code groupSize}. */
    public static TriageScore of(DeadLetterReason reason, Instant createdAt, Instant now, long groupSize, boolean held) {
        Objects.requireNonNull(reason, "reason");
        List<Part> parts = new ArrayList<>();
        parts.add(new Part("severity", severityPoints(reason), reason.name() + " is " + reason.severity().name().toLowerCase(java.util.Locale.ROOT)
                + " severity"));
        parts.add(new Part("priority", priorityPoints(reason), reason.name() + " has triage priority " + reason.priority()));
        Duration age = createdAt == null || createdAt.isAfter(now) ? Duration.ZERO : Duration.between(createdAt, now);
        parts.add(new Part("age", points(AGE, age), "open " + describe(age)));
        parts.add(new Part("causeGroup", points(GROUP, groupSize), groupSize <= 1 ? "the only open one of its cause"
                : groupSize + " open dead letters share its cause"));
        parts.add(new Part("held", held ? HELD_POINTS : 0, held ? "its step is held (its dependency is failing)" : "its step is not held"));
        return new TriageScore(parts.stream().mapToInt(Part::value).sum(), parts);
    }

    static int severityPoints(DeadLetterReason reason) {
        return SEVERITY_POINTS.get(reason.severity());
    }

    static int priorityPoints(DeadLetterReason reason) {
        return Math.max(0, 2 * (8 - reason.priority()));
    }

    private static <T extends Comparable<T>> int points(List<Step<T>> steps, T value) {
        for (Step<T> step : steps) {
            if (value.compareTo(step.atLeast()) >= 0) {
                return step.points();
            }
        }
        return 0;
    }

    /** The parts in a line a page can show: "severity 30 (…) · age 12 (open 3 h) · …", the factors that add nothing left out. */
    public String explanation() {
        List<String> shown = parts.stream().filter(p -> p.value() != 0).map(p -> p.factor() + " " + p.value() + " (" + p.why() + ")").toList();
        return shown.isEmpty() ? "nothing raises it" : String.join(" · ", shown);
    }

    static String describe(Duration age) {
        if (age.toDays() >= 2) {
            return age.toDays() + " d";
        }
        if (age.toHours() >= 1) {
            return age.toHours() + " h";
        }
        if (age.toMinutes() >= 1) {
            return age.toMinutes() + " min";
        }
        return age.toSeconds() + " s";
    }

    /**
     * The score as a SQL expression over the {@code dead_letter} row {@code d}, its cause group's open count {@code
     * groupSize} and {@code held} (1 if its step is held, else 0), for the database to sort by. The age thresholds are
     * the parameters {@code :age0}… ({@link #ageParameters}), moments before {@code now}: the same comparison as {@link #of}.
     */
    static String sql(String groupSize, String held) {
        StringBuilder reason = new StringBuilder("(case d.reason");
        for (DeadLetterReason each : DeadLetterReason.values()) {
            reason.append(" when '").append(each.name()).append("' then ").append(severityPoints(each) + priorityPoints(each));
        }
        reason.append(" else 0 end)");
        StringBuilder age = new StringBuilder("(case");
        for (int i = 0; i < AGE.size(); i++) {
            age.append(" when d.created_at <= :age").append(i).append(" then ").append(AGE.get(i).points());
        }
        age.append(" else 0 end)");
        StringBuilder group = new StringBuilder("(case");
        for (Step<Long> step : GROUP) {
            group.append(" when ").append(groupSize).append(" >= ").append(step.atLeast()).append(" then ").append(step.points());
        }
        group.append(" else 0 end)");
        return reason + " + " + age + " + " + group + " + " + HELD_POINTS + " * " + held;
    }

    /** The moments the age thresholds of {@link #sql} compare with, for {@code now}: {@code age0}… */
    static Map<String, Instant> ageParameters(Instant now) {
        Map<String, Instant> parameters = new java.util.HashMap<>();
        for (int i = 0; i < AGE.size(); i++) {
            parameters.put("age" + i, now.minus(AGE.get(i).atLeast()));
        }
        return parameters;
    }
}
