package dev.lazarus.deadletter.entity;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Where an exception was thrown and what it was caused by, the part of a {@link Fingerprint} its stack trace gives:
 * the exception's top {@value Fingerprint#FRAMES} frames, each as {@code class.method} with what changes from one
 * occurrence to the next taken out (line numbers, generated class and lambda names, addresses; see {@link #frame}),
 * and the class of its root cause (the last of its causes, "" if it has none).
 *
 * <p>Only the stack trace proper counts, never the exception's message: a message is made from whatever the failing
 * code was handling (a document, a reply), and if its lines could pass for frames, a message could choose the group
 * its dead letter joins, and an operator's "requeue only this cause" would take runs it should not. So:
 * <ul>
 * <li>{@link #of(Throwable)}, when a dead letter is recorded from an exception: its frames are its
 * {@code StackTraceElement}s and its root cause is the end of its chain of causes; no text is read.</li>
 * <li>{@link #ofText}, for a stack trace kept only as text (a dead letter recorded before V14): a printed trace
 * begins with the exception's {@code toString()}, its class and, if it has a message, ": " and the message, which may
 * span lines and hold anything, lines like {@code "\tat com.victim.Service.charge(Service.java:42)"} or
 * {@code "Caused by: ..."} too. Nothing in the text says where the message ends; what is stored beside it does. The
 * header is the first line if that line is the exception class alone (it had no message), or else exactly the
 * stored class, ": " and the stored message, followed by a line break. If the text starts with neither (the message
 * was stored cut at its column's size, or the exception prints itself its own way) the header's end is unknown and
 * the text gives no frames and no root cause: the dead letter is keyed as one without a stack trace is. After the
 * header, the frames are the {@code at} lines that follow it and the root cause the class on the last line starting
 * {@code "Caused by: "}. (A cause's own message is not stored, so in such older text a cause's message could still
 * name the root cause; a dead letter recorded from an exception walks the chain itself.)</li>
 * </ul>
 *
 * <p>The work per dead letter is bounded and linear: of a text only its first {@value #MAX_TEXT} characters (the
 * stack trace column's size) are looked at, each once or twice, and of a frame or a cause only the first
 * {@value #MAX_NAME} characters after {@code "at "} or {@code "Caused by: "}; the normalising patterns run on those
 * short names only. A hostile text (lines of a megabyte, thousands of lines, control characters) costs no more.
 */
public record StackSummary(List<String> frames, String rootCause) {

    /** Characters of a stack trace text that are looked at: as many as its column holds. */
    static final int MAX_TEXT = 16_000;

    /** Characters of a frame ({@code class.method}) or a root cause's class that are looked at, and the most kept. */
    public static final int MAX_NAME = 500;

    /** Causes of an exception that are followed to find its root (a chain is a handful long; this bounds a cycle). */
    static final int MAX_CAUSES = 100;

    /** No frames, no root cause: what a dead letter without a (readable) stack trace has. */
    public static final StackSummary NONE = new StackSummary(List.of(), "");

    private static final String AT = "at ";
    private static final String CAUSED_BY = "Caused by: ";

    private static final Pattern MODULE_PREFIX = Pattern.compile("^[^/]*//|^[^/]*/");
    private static final Pattern LAMBDA = Pattern.compile("\\$\\$Lambda[$/][^.(]*");
    private static final Pattern NUMBERED = Pattern.compile("(GeneratedMethodAccessor|\\$Proxy|\\$)\\d+");
    private static final Pattern GENERATED = Pattern.compile("\\$\\$_?\\w*Subclass|0x[0-9a-fA-F]+");

    public StackSummary {
        frames = List.copyOf(frames);
        rootCause = Objects.requireNonNullElse(rootCause, "");
    }

    /** The top frame, or null if there is none. */
    public String topFrame() {
        return frames.isEmpty() ? null : frames.get(0);
    }

    /** The root cause's class, or null if it has none. */
    public String rootCauseOrNull() {
        return rootCause.isEmpty() ? null : rootCause;
    }

    /** Of an exception at hand: its own frames and chain of causes, whatever its message says. */
    public static StackSummary of(Throwable failure) {
        if (failure == null) {
            return NONE;
        }
        StackTraceElement[] elements = failure.getStackTrace();
        List<String> frames = new ArrayList<>(Fingerprint.FRAMES);
        for (int i = 0; i < elements.length && frames.size() < Fingerprint.FRAMES; i++) {
            // as printStackTrace prints it after "\tat ", so a text of the same trace reads the same (ofText)
            String element = elements[i].toString();
            frames.add(frame(element, 0, element.length()));
        }
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        seen.add(failure);
        Throwable root = failure;
        for (Throwable cause = failure.getCause(); cause != null && seen.add(cause) && seen.size() <= MAX_CAUSES; cause = cause.getCause()) {
            root = cause;
        }
        String rootCause = root == failure ? "" : root.getClass().getName();
        return new StackSummary(frames, rootCause.length() > MAX_NAME ? rootCause.substring(0, MAX_NAME).strip() : rootCause);
    }

    /**
     * Of a stack trace kept as text, headed by {@code exceptionClass} and {@code message} (the exception's class name
     * and message as stored next to it; see the class comment for the rule).
     */
    public static StackSummary ofText(CharSequence trace, String exceptionClass, String message) {
        if (trace == null || exceptionClass == null || exceptionClass.isEmpty()) {
            return NONE;
        }
        int end = Math.min(trace.length(), MAX_TEXT);
        int line = afterHeader(trace, end, exceptionClass, message);
        if (line < 0) {
            return NONE;
        }
        List<String> frames = new ArrayList<>(Fingerprint.FRAMES);
        boolean inFrames = true;
        String rootCause = "";
        while (line < end) {
            int lineEnd = lineEnd(trace, line, end);
            if (inFrames) {
                int name = afterAt(trace, line, lineEnd);
                if (name < 0) {
                    inFrames = false; // the first exception's frames end at the first line that is not one
                } else if (frames.size() < Fingerprint.FRAMES) {
                    frames.add(frame(trace, name, lineEnd));
                }
            }
            if (startsWith(trace, line, lineEnd, CAUSED_BY)) {
                rootCause = causeClass(trace, line + CAUSED_BY.length(), lineEnd);
            }
            line = lineEnd + 1;
        }
        return new StackSummary(frames, rootCause);
    }

    /**
     * Where the line after the header starts (the length of the text if nothing follows it), or -1 if the text does
     * not start with the header the stored class and message make.
     */
    private static int afterHeader(CharSequence trace, int end, String exceptionClass, String message) {
        int firstLineEnd = lineEnd(trace, 0, Math.min(end, exceptionClass.length() + 2));
        if (endOfLine(trace, 0, firstLineEnd).equals(exceptionClass)) {
            return firstLineEnd + 1; // no message: the class alone is the header
        }
        if (message == null) {
            return -1;
        }
        int headerEnd = exceptionClass.length() + 2 + message.length();
        if (headerEnd > end || !startsWith(trace, 0, end, exceptionClass) || !startsWith(trace, exceptionClass.length(), end, ": ")
                || !startsWith(trace, exceptionClass.length() + 2, end, message)) {
            return -1;
        }
        if (headerEnd == trace.length()) {
            return headerEnd;
        }
        if (headerEnd < end && trace.charAt(headerEnd) == '\n') {
            return headerEnd + 1;
        }
        if (headerEnd + 1 < end && trace.charAt(headerEnd) == '\r' && trace.charAt(headerEnd + 1) == '\n') {
            return headerEnd + 2;
        }
        return -1; // the message goes on in the text beyond what is stored of it
    }

    /** The text of a line without its line break ({@code \r\n} as much as {@code \n}). */
    private static String endOfLine(CharSequence trace, int from, int lineEnd) {
        int to = lineEnd > from && trace.charAt(lineEnd - 1) == '\r' ? lineEnd - 1 : lineEnd;
        return trace.subSequence(from, to).toString();
    }

    /** The index of the {@code '\n'} that ends the line starting at {@code from}, or {@code end}. */
    private static int lineEnd(CharSequence trace, int from, int end) {
        int i = from;
        while (i < end && trace.charAt(i) != '\n') {
            i++;
        }
        return i;
    }

    /** Where the frame of an {@code at} line starts (after blanks, {@code "at "} and blanks), or -1 if it is no such line. */
    private static int afterAt(CharSequence trace, int from, int lineEnd) {
        int i = skipBlanks(trace, from, lineEnd);
        if (!startsWith(trace, i, lineEnd, AT)) {
            return -1;
        }
        i = skipBlanks(trace, i + AT.length(), lineEnd);
        return i < lineEnd ? i : -1;
    }

    private static int skipBlanks(CharSequence trace, int from, int end) {
        int i = from;
        while (i < end && (trace.charAt(i) == ' ' || trace.charAt(i) == '\t')) {
            i++;
        }
        return i;
    }

    private static boolean startsWith(CharSequence trace, int from, int end, String prefix) {
        if (end - from < prefix.length()) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (trace.charAt(from + i) != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** The class of a "Caused by: " line: up to its ':' (its message follows), of its first {@link #MAX_NAME} characters. */
    private static String causeClass(CharSequence trace, int from, int lineEnd) {
        int end = Math.min(lineEnd, from + MAX_NAME);
        int i = from;
        while (i < end && trace.charAt(i) != ':') {
            i++;
        }
        return trace.subSequence(from, i).toString().strip();
    }

    /**
     * A frame as {@code class.method}, from the text after {@code "at "} ({@code [loader/][module/]class.method(file:line)}),
     * of which only the first {@link #MAX_NAME} characters are looked at: up to its '(' or a blank, without the class
     * loader or module (so without its line number too), with generated and numbered names made the same.
     */
    static String frame(CharSequence text, int from, int lineEnd) {
        int end = Math.min(lineEnd, from + MAX_NAME);
        int i = from;
        while (i < end && text.charAt(i) != '(' && !Character.isWhitespace(text.charAt(i))) {
            i++;
        }
        String frame = text.subSequence(from, i).toString();
        frame = MODULE_PREFIX.matcher(frame).replaceFirst("");
        frame = LAMBDA.matcher(frame).replaceAll("\\$\\$Lambda");
        frame = NUMBERED.matcher(frame).replaceAll("$1#");
        return GENERATED.matcher(frame).replaceAll("\\$#");
    }
}
