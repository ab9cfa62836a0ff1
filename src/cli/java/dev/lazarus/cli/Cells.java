package dev.lazarus.cli;

/**
 * Text from the server made fit for a terminal line: control characters (an escape sequence in an error message could
 * rewrite the operator's screen) become spaces, runs of white space one space, and a long text is cut with an ellipsis.
 */
public final class Cells {

    private Cells() {
    }

    public static String oneLine(String text, int max) {
        if (text == null) {
            return "";
        }
        StringBuilder line = new StringBuilder(Math.min(text.length(), max + 1));
        boolean space = false;
        for (int i = 0; i < text.length() && line.length() <= max; ) {
            int c = text.codePointAt(i);
            i += Character.charCount(c);
            boolean blank = Character.isWhitespace(c) || Character.isISOControl(c) || Character.getType(c) == Character.FORMAT;
            if (blank) {
                space = line.length() > 0;
            } else {
                if (space) {
                    line.append(' ');
                    space = false;
                }
                line.appendCodePoint(c);
            }
        }
        return truncate(line.toString(), max);
    }

    /** {@code text} cut to at most {@code max} characters, the last of them an ellipsis if it was cut. */
    public static String truncate(String text, int max) {
        if (text.length() <= max) {
            return text;
        }
        if (max <= 1) {
            return max == 1 ? "…" : "";
        }
        int end = max - 1;
        if (Character.isHighSurrogate(text.charAt(end - 1))) {
            end--; // never half a character
        }
        return text.substring(0, end) + "…";
    }
}
