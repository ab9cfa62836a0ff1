package dev.lazarus.platform.control;

/** Text as the database columns bound it. */
public final class Text {

    private Text() {
    }

    /** {@code text} cut to at most {@code max} characters, marked with an ellipsis when cut; null stays null. */
    public static String truncate(String text, int max) {
        if (text == null || text.length() <= max) {
            return text;
        }
        return text.substring(0, max - 1) + "…";
    }
}
