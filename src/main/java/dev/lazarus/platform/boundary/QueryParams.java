package dev.lazarus.platform.boundary;

import dev.lazarus.platform.control.Problem;
import dev.lazarus.platform.entity.Text;
import jakarta.ws.rs.core.UriInfo;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * Query parameters every list endpoint parses the same way, refusing bad values with a problem that names the
 * parameter (a 400, never the framework's own 404 for a number it could not read).
 */
public final class QueryParams {

    private QueryParams() {
    }

    /** The enum constant named by {@code value} (any case), null if absent, a 400 problem if unknown. */
    public static <E extends Enum<E>> E enumValue(Class<E> type, String name, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Enum.valueOf(type, value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw Problem.badRequest(name + " must be one of " + Arrays.toString(type.getEnumConstants()) + ", was '"
                    + Text.printable(value, 100) + "'");
        }
    }

    /** {@code true} or {@code false} (any case), null if absent; anything else is refused rather than read as false. */
    public static Boolean bool(String name, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw Problem.badRequest(name + " must be true or false, was '" + Text.printable(value, 100) + "'");
        };
    }

    /** Where a page starts: a whole number from 0, 0 if absent. */
    public static int offset(String value) {
        Integer offset = wholeNumber("offset", value);
        if (offset != null && offset < 0) {
            throw Problem.badRequest("offset must be 0 or more, was " + offset);
        }
        return offset == null ? 0 : offset;
    }

    /** How many a page holds: a whole number, held to 1 to {@value Page#MAX_LIMIT} ({@value Page#DEFAULT_LIMIT} if absent). */
    public static int limit(String value) {
        return Page.limit(wholeNumber("limit", value));
    }

    private static Integer wholeNumber(String name, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Integer.valueOf(value.trim());
        } catch (NumberFormatException e) {
            throw Problem.badRequest(name + " must be a whole number up to " + Integer.MAX_VALUE + ", was '" + Text.printable(value, 100) + "'");
        }
    }

    /**
     * Refuses (400) a query parameter the endpoint does not take: a misspelt filter silently left out would widen the
     * list it asks for.
     */
    public static void onlyKnown(UriInfo uri, Collection<String> known) {
        noneRepeated(uri);
        List<String> unknown = uri.getQueryParameters().keySet().stream().filter(name -> !known.contains(name)).sorted().toList();
        if (!unknown.isEmpty()) {
            throw Problem.badRequest("unknown query parameter(s) " + unknown.stream().map(name -> Text.printable(name, 40)).toList()
                    + "; this list takes " + new TreeSet<>(known));
        }
    }

    /**
     * Refuses (400) a query parameter given more than once: which one a filter would use is anyone's guess
     * ({@code runId=A&runId=B}), and a list filtered by another value than the caller meant is worse than none.
     */
    public static void noneRepeated(UriInfo uri) {
        List<String> repeated = uri.getQueryParameters().entrySet().stream().filter(entry -> entry.getValue().size() > 1)
                .map(entry -> Text.printable(entry.getKey(), 40)).sorted().toList();
        if (!repeated.isEmpty()) {
            throw Problem.badRequest("query parameter(s) " + repeated + " given more than once; give each once");
        }
    }
}
