package dev.lazarus.pipeline.entity;

import dev.lazarus.platform.entity.Text;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What a submitter names a run by, so an operator can find it by what they know: a business {@code key} (an order
 * id; at most one run of a pipeline has it if the submitter asked for {@code uniqueKey}) and {@code labels}. Given once,
 * when the run is submitted; kept beside the run ({@link RunMarks}), never changed.
 *
 * <p>Not the {@code Idempotency-Key}: that one names a submission (a retry of it answers the run it created, per
 * caller) and is never shown; this one names the business object the run is about, for anyone to search.
 */
public record RunTags(String key, List<String> labels, boolean uniqueKey) {

    /** The longest key: an order id, a customer reference. */
    public static final int KEY_LENGTH = 200;
    public static final int MAX_LABELS = 20;
    public static final int LABEL_LENGTH = 100;
    /** Letters, digits and {@code . _ : / = -}: enough for "region:eu", "team/billing", "env=prod". */
    public static final Pattern LABEL = Pattern.compile("[A-Za-z0-9._:/=-]{1," + LABEL_LENGTH + "}");
    static final String LABEL_RULE = "1 to " + LABEL_LENGTH + " of the characters A-Z a-z 0-9 . _ : / = -";

    public static final RunTags NONE = new RunTags(null, List.of(), false);

    /** Checks every part; a bad one is an {@link IllegalArgumentException} naming it (a 400 at the boundary). */
    public RunTags {
        key = checkKey("key", key);
        labels = checkLabels("labels", labels == null ? List.of() : labels);
        if (uniqueKey && key == null) {
            throw new IllegalArgumentException("'uniqueKey' needs a 'key'");
        }
    }

    public boolean isEmpty() {
        return key == null && labels.isEmpty();
    }

    /**
     * A key as given (not stripped: it is matched exactly), or null; at most {@value #KEY_LENGTH} characters, none of
     * them a control character, not blank.
     */
    public static String checkKey(String field, String key) {
        if (key == null) {
            return null;
        }
        if (key.isBlank() || key.length() > KEY_LENGTH || !printable(key)) {
            throw new IllegalArgumentException("'" + field + "' must be 1 to " + KEY_LENGTH
                    + " characters, not blank, without control characters; was '" + Text.printable(key, 60) + "'");
        }
        return key;
    }

    /** A label, checked. */
    public static String checkLabel(String field, String label) {
        if (label == null || !LABEL.matcher(label).matches()) {
            throw new IllegalArgumentException("'" + field + "' must be " + LABEL_RULE + "; was '" + Text.printable(label, 60) + "'");
        }
        return label;
    }

    private static List<String> checkLabels(String field, List<String> labels) {
        if (labels.size() > MAX_LABELS) {
            throw new IllegalArgumentException("'" + field + "' may hold at most " + MAX_LABELS + " labels, has " + labels.size());
        }
        List<String> checked = new ArrayList<>(labels.size());
        for (int i = 0; i < labels.size(); i++) {
            checked.add(checkLabel(field + "[" + i + "]", labels.get(i)));
        }
        return List.copyOf(new LinkedHashSet<>(checked)); // a label given twice is one label
    }

    /** No control characters (C0, DEL, C1), no half of a surrogate pair, nothing that reorders text on screen. */
    static boolean printable(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || (c >= 0x7f && c < 0xa0) || Text.isDirectionControl(c)) {
                return false;
            }
            if (Character.isHighSurrogate(c) && (i + 1 == text.length() || !Character.isLowSurrogate(text.charAt(i + 1)))) {
                return false;
            }
            if (Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(text.charAt(i - 1)))) {
                return false;
            }
        }
        return true;
    }

    /** The labels as PostgreSQL writes a {@code text[]} as text ({@code {a,b}}; a label "NULL" is quoted). */
    public static List<String> fromArrayText(String array) {
        if (array == null || array.length() < 2 || array.equals("{}")) {
            return List.of();
        }
        List<String> labels = new ArrayList<>();
        for (String each : array.substring(1, array.length() - 1).split(",")) {
            labels.add(each.startsWith("\"") && each.endsWith("\"") && each.length() >= 2 ? each.substring(1, each.length() - 1) : each);
        }
        return List.copyOf(labels);
    }
}
