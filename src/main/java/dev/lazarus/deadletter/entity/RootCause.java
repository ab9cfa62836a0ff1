package dev.lazarus.deadletter.entity;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Why a dead letter happened, as the operator who resolved it judged: recorded with the resolve (optional), counted on
 * the dashboard next to the time to resolve, so a team sees whether its dead letters come from its code, its data, its
 * dependencies or its configuration.
 */
public enum RootCause {
    CODE_DEFECT("Code defect"),
    BAD_DATA("Bad data"),
    DEPENDENCY("Dependency"),
    CONFIGURATION("Configuration"),
    OTHER("Other");

    private final String label;

    RootCause(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** The names a request may give, in the registry's order: what an error lists. */
    public static String names() {
        return Arrays.stream(values()).map(Enum::name).collect(Collectors.joining(", "));
    }

    /**
     * The root cause a request names (in any case), or null if it names none ({@code null}); anything else is refused
     * with the allowed names.
     */
    public static RootCause named(String name) {
        if (name == null) {
            return null;
        }
        for (RootCause cause : values()) {
            if (cause.name().equals(name.trim().toUpperCase(Locale.ROOT))) {
                return cause;
            }
        }
        throw new IllegalArgumentException("'rootCause' must be one of " + names() + "; was \"" + abbreviated(name) + "\"");
    }

    private static String abbreviated(String name) {
        String printable = name.replaceAll("\\p{Cntrl}", "?");
        return printable.length() > 40 ? printable.substring(0, 40) + "…" : printable;
    }
}
