package dev.lazarus.platform.boundary;

import dev.lazarus.platform.control.Problem;
import dev.lazarus.platform.control.Text;
import java.util.Arrays;

/** Query parameters every list endpoint parses the same way, refusing bad values with a problem. */
public final class QueryParams {

    private QueryParams() {
    }

    /** The enum constant named by {@code value} (any case), null if absent, a 400 problem if unknown. */
    public static <E extends Enum<E>> E enumValue(Class<E> type, String name, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Enum.valueOf(type, value.trim().toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw Problem.badRequest(name + " must be one of " + Arrays.toString(type.getEnumConstants()) + ", was '"
                    + Text.printable(value, 100) + "'");
        }
    }
}
