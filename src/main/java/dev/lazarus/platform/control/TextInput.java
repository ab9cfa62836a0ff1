package dev.lazarus.platform.control;

import dev.lazarus.platform.entity.Text;
/**
 * The one rule for text a person sends Lazarus (a note, a filter value, a name to look for): each has one stated limit,
 * the reference's limits table lists them all, and it is checked where it enters, before anything reads the
 * database with it or stores it. Past its limit, or holding a character PostgreSQL cannot store (NUL) or a terminal
 * would obey (other control characters, and the controls that reorder text on screen), or not being Unicode at all
 * (half of a surrogate pair), it is a 400 problem
 * that names the field and the limit: never a 500 from the database, never text cut or changed silently.
 *
 * <p>Lengths count characters as Java does (UTF-16 units), which is never fewer than the database's count of the same
 * text: what passes here fits the column.
 */
public final class TextInput {

    private TextInput() {
    }

    /**
     * A value on one line (a name, a filter): no control character at all.
     *
     * @return the value as sent, or null if absent or blank
     */
    public static String line(String field, String value, int maxLength) {
        String text = blankToNull(value);
        check(field, text, maxLength, false);
        return text;
    }

    /** A name (of a pipeline, a step): {@link #line} without the blanks around it. */
    public static String name(String field, String value, int maxLength) {
        String text = line(field, value, maxLength);
        return text == null ? null : text.strip();
    }

    /**
     * Free text (a note): line breaks and tabs are text, other control characters are refused.
     *
     * @return the value as sent, or null if absent or blank
     */
    public static String text(String field, String value, int maxLength) {
        String text = blankToNull(value);
        check(field, text, maxLength, true);
        return text;
    }

    /** The same as {@link #text}, for a field that must be given ({@code why} says what for). */
    public static String requiredText(String field, String value, int maxLength, String why) {
        String text = text(field, value, maxLength);
        if (text == null) {
            throw Problem.badRequest("'" + field + "' is required: " + why);
        }
        return text;
    }

    private static void check(String field, String text, int maxLength, boolean multiline) {
        if (text == null) {
            return;
        }
        if (text.length() > maxLength) {
            throw Problem.badRequest("'" + field + "' has at most " + maxLength + " characters; this one has " + text.length());
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isISOControl(c) && !(multiline && (c == '\n' || c == '\r' || c == '\t'))) {
                throw Problem.badRequest("'" + field + "' may not contain a control character (U+" + String.format("%04X", (int) c)
                        + " at position " + i + ")" + (multiline ? "; line breaks and tabs are fine" : ""));
            }
            if (Text.isDirectionControl(c)) {
                throw Problem.badRequest("'" + field + "' may not contain a character that reorders text (U+"
                        + String.format("%04X", (int) c) + " at position " + i + "): it can make a note read other than it is written");
            }
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++; // a character outside the basic plane, whole
            } else if (Character.isSurrogate(c)) {
                throw Problem.badRequest("'" + field + "' is not valid Unicode (half of a surrogate pair at position " + i + ")");
            }
        }
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value;
    }
}
