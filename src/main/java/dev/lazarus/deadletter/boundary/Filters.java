package dev.lazarus.deadletter.boundary;

import dev.lazarus.deadletter.entity.DeadLetterFilter;
import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.deadletter.entity.DeadLetterStatus;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.platform.boundary.JsonBodies;
import dev.lazarus.platform.boundary.QueryParams;
import dev.lazarus.platform.control.Problem;
import dev.lazarus.platform.entity.Text;
import dev.lazarus.platform.control.TextInput;
import jakarta.json.JsonObject;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Reads a {@link DeadLetterFilter} from query parameters, a JSON object or the admin page's fields, the same
 * names and the same rules everywhere; bad values are a 400 problem.
 */
public final class Filters {

    private Filters() {
    }

    public static DeadLetterFilter of(String reason, String status, String runId, boolean openOnly, String pipeline, String step,
                               String from, String to, String error, String cause) {
        try {
            return new DeadLetterFilter(QueryParams.enumValue(DeadLetterReason.class, "reason", reason),
                    QueryParams.enumValue(DeadLetterStatus.class, "status", status),
                    runId == null || runId.isBlank() ? null : uuid(runId), openOnly,
                    TextInput.name("pipeline", pipeline, Run.NAME_LENGTH), TextInput.name("step", step, Run.NAME_LENGTH),
                    instant("from", from), instant("to", to), TextInput.line("error", error, DeadLetterFilter.ERROR_TEXT_LENGTH),
                    TextInput.name("cause", cause, DeadLetterFilter.CAUSE_LENGTH));
        } catch (IllegalArgumentException e) {
            throw Problem.badRequest(e.getMessage());
        }
    }

    /** The names a bulk job's filter takes, over the API and in the dry run's query. */
    public static final Set<String> JOB_FILTER = Set.of("reason", "status", "runId", "pipeline", "step", "from", "to", "error", "cause");

    /**
     * {@code {"reason", "status", "runId", "pipeline", "step", "from", "to", "error", "cause"}}, open dead letters only. A name
     * it does not know is refused: a filter silently dropped would widen what a bulk job acts on.
     */
    static DeadLetterFilter of(JsonObject json) {
        requireKnown(json.keySet(), "filter");
        return of(JsonBodies.optionalString(json, "reason"), JsonBodies.optionalString(json, "status"),
                JsonBodies.optionalString(json, "runId"), true, JsonBodies.optionalString(json, "pipeline"),
                JsonBodies.optionalString(json, "step"), JsonBodies.optionalString(json, "from"),
                JsonBodies.optionalString(json, "to"), JsonBodies.optionalString(json, "error"),
                JsonBodies.optionalString(json, "cause"));
    }

    /** Refuses (400) any of {@code names} a job's filter does not know. */
    static void requireKnown(Collection<String> names, String where) {
        List<String> unknown = names.stream().filter(name -> !JOB_FILTER.contains(name)).sorted().toList();
        if (!unknown.isEmpty()) {
            throw Problem.badRequest("unknown " + where + " name(s) " + unknown + "; a job's filter takes " + new TreeSet<>(JOB_FILTER));
        }
    }

    static UUID uuid(String value) {
        try {
            return UUID.fromString(value);
        } catch (IllegalArgumentException e) {
            throw Problem.badRequest("'" + Text.printable(value, 100) + "' is not a run id (a UUID)");
        }
    }

    private static Instant instant(String name, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        Instant instant;
        try {
            instant = Instant.parse(value.trim());
        } catch (DateTimeParseException e) {
            throw Problem.badRequest(name + " must be an ISO-8601 instant such as 2026-11-22T06:00:00Z, was '" + Text.printable(value, 100) + "'");
        }
        // Java reads years up to a billion; the database's time stamps and anything anyone means end long before
        if (instant.isBefore(EARLIEST) || instant.isAfter(LATEST)) {
            throw Problem.badRequest(name + " must be between " + EARLIEST + " and " + LATEST + ", was '" + Text.printable(value, 100) + "'");
        }
        return instant;
    }

    private static final Instant EARLIEST = Instant.parse("0001-01-01T00:00:00Z");
    private static final Instant LATEST = Instant.parse("9999-12-31T23:59:59Z");
}
