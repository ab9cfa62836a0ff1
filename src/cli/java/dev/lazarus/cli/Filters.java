package dev.lazarus.cli;

import jakarta.json.JsonObjectBuilder;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Option;

/** The filter options the list commands share, named as the API's query parameters are. */
final class Filters {

    private Filters() {
    }

    /** Which dead letters: the filter of {@code GET /api/dead-letters}, its causes and a bulk job. */
    static final class DeadLetterFilter {

        @Option(names = "--reason", paramLabel = "REASON", description = "A reason code: RETRIES_EXHAUSTED, NON_RETRYABLE, STUCK_IN_PROGRESS, MANUAL, ...")
        String reason;

        @Option(names = "--status", paramLabel = "STATUS",
                description = "PENDING, INVESTIGATING, REQUEUED, RESOLVED_MANUALLY or DISCARDED; OPEN for the first two")
        String status;

        @Option(names = "--run", paramLabel = "RUN_ID", description = "The dead letters of one run")
        String runId;

        @Option(names = "--pipeline", paramLabel = "NAME")
        String pipeline;

        @Option(names = "--step", paramLabel = "NAME")
        String step;

        @Option(names = {"--since", "--from"}, paramLabel = "WHEN",
                description = "Recorded at or after: an instant (2026-11-22T06:00:00Z) or an age (30m, 2h, 7d)")
        String from;

        @Option(names = {"--until", "--to"}, paramLabel = "WHEN", description = "Recorded at or before: an instant or an age")
        String to;

        @Option(names = "--error", paramLabel = "TEXT", description = "Whose error message contains this text")
        String error;

        /** {@code OPEN} is not a status but both open ones: the API's {@code open=true}. */
        boolean openStatus() {
            return status != null && status.trim().equalsIgnoreCase("OPEN");
        }

        Query addTo(Query query) {
            return query.add("reason", reason).add("status", openStatus() ? null : status).add("open", openStatus() ? "true" : null)
                    .add("runId", runId).add("pipeline", pipeline).add("step", step).add("from", instant(from)).add("to", instant(to))
                    .add("error", error);
        }

        /** As a bulk job's {@code filter} (which selects open dead letters only, so OPEN says nothing more). */
        JsonObjectBuilder asJobFilter(String cause) {
            JsonObjectBuilder filter = Json.JSON.createObjectBuilder();
            add(filter, "reason", reason);
            add(filter, "status", openStatus() ? null : status);
            add(filter, "runId", runId);
            add(filter, "pipeline", pipeline);
            add(filter, "step", step);
            add(filter, "from", instant(from));
            add(filter, "to", instant(to));
            add(filter, "error", error);
            add(filter, "cause", cause);
            return filter;
        }

        Query addJobFilterTo(Query query, String cause) {
            return query.add("reason", reason).add("status", openStatus() ? null : status).add("runId", runId).add("pipeline", pipeline)
                    .add("step", step).add("from", instant(from)).add("to", instant(to)).add("error", error).add("cause", cause);
        }

        private static void add(JsonObjectBuilder json, String name, String value) {
            if (value != null && !value.isEmpty()) {
                json.add(name, value);
            }
        }
    }

    /** What the operator knows: a run's business key, a label, a field of its payload. */
    static final class Search {

        @Option(names = "--key", paramLabel = "KEY", description = "The run's business key (an order id, say)")
        String key;

        @Option(names = "--label", paramLabel = "LABEL", description = "A label the run carries")
        String label;

        @Option(names = "--payload", paramLabel = "PATH=VALUE", mapFallbackValue = "",
                description = "A field of the payload, repeatable: --payload customer.id=42 asks for payload.customer.id=42")
        Map<String, String> payload;

        Query addTo(Query query) {
            query.add("key", key).add("label", label);
            if (payload != null) {
                payload.forEach((path, value) -> query.add("payload." + path, value));
            }
            return query;
        }
    }

    /** Paging: where to start and how many (the API's limit, 50 unless given, 500 at most). */
    static final class Paging {

        @Option(names = "--offset", paramLabel = "N", description = "Skip the first N")
        Integer offset;

        @Option(names = "--limit", paramLabel = "N", description = "At most N (the server's default: 50, its maximum: 500)")
        Integer limit;

        Query addTo(Query query) {
            return query.add("offset", offset).add("limit", limit);
        }
    }

    private static final Pattern AGE = Pattern.compile("(\\d{1,6})([smhd])");

    /**
     * An instant as the API takes it: given as one, it is passed on as it is (the server checks it); an age such as
     * {@code 2h} is that long before now.
     */
    static String instant(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        Matcher age = AGE.matcher(value.trim().toLowerCase(Locale.ROOT));
        if (!age.matches()) {
            return value.trim();
        }
        long amount = Long.parseLong(age.group(1));
        Duration duration = switch (age.group(2)) {
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            default -> Duration.ofDays(amount);
        };
        return Instant.now().minus(duration).truncatedTo(ChronoUnit.SECONDS).toString();
    }
}
