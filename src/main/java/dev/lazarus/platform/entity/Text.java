package dev.lazarus.platform.entity;

/** Text as the database columns bound it, and as a refusal quotes it back. */
public final class Text {

    private Text() {
    }

    /**
     * {@code text} as a column keeps it: cut to at most {@code max} characters, marked with an ellipsis when cut, and with
     * each NUL character (which PostgreSQL cannot keep in text, and a sender or a handler's exception can put anywhere)
     * replaced by U+FFFD, so the evidence is recorded rather than refused; null stays null.
     */
    public static String truncate(String text, int max) {
        if (text == null) {
            return null;
        }
        String storable = text.indexOf(NUL) < 0 ? text : text.replace(NUL, REPLACEMENT);
        if (storable.length() <= max) {
            return storable;
        }
        int keep = max - 1;
        if (keep > 0 && Character.isHighSurrogate(storable.charAt(keep - 1))) {
            keep--; // never half of a character outside the basic plane
        }
        return storable.substring(0, keep) + "…";
    }

    private static final char NUL = 0;
    private static final char REPLACEMENT = 0xFFFD;

    /**
     * Text a client sent, to quote back in an answer or a log line: at most {@code max} characters, control characters
     * shown as U+XXXX escapes (and the controls that reorder text, which would turn the answer around them), so a refusal
     * never carries the very input it refuses at full length.
     */
    public static String printable(String text, int max) {
        if (text == null) {
            return null;
        }
        StringBuilder shown = new StringBuilder(Math.min(text.length(), max) + 8);
        int i = 0;
        for (; i < text.length() && shown.length() < max; i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                shown.append(c).append(text.charAt(++i)); // one character outside the basic plane
            } else if (Character.isISOControl(c) || Character.isSurrogate(c) || isDirectionControl(c)) {
                shown.append(String.format("\\u%04X", (int) c));
            } else {
                shown.append(c);
            }
        }
        return i < text.length() ? shown + "…" : shown.toString();
    }

    /** The bidirectional embedding, override and isolate controls (a right-to-left mark alone only hints, it stays). */
    public static boolean isDirectionControl(char c) {
        return c >= 0x202A && c <= 0x202E || c >= 0x2066 && c <= 0x2069;
    }
}
