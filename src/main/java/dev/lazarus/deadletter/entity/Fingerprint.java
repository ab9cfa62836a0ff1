package dev.lazarus.deadletter.entity;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What a dead letter's cause looks like, as a short key that dead letters with the same cause share, so thousands of
 * them read as "3 causes": the exception's class (and its root cause's) and the top frames of its stack trace,
 * normalised so that what
 * changes from one occurrence to the next (line numbers after a redeployment, generated class and lambda names,
 * addresses) does not split a group. The error message is not part of it where there is a stack trace: it usually
 * names the run, the document, the id. A dead letter with no exception (a sweep's, a malformed message's) is keyed by
 * its reason and its error text with ids and numbers taken out.
 */
public final class Fingerprint {

    /** How many frames of the stack trace count. */
    static final int FRAMES = 5;

    private static final Pattern FRAME = Pattern.compile("^\\s*at\\s+(\\S+?)(\\(.*\\))?\\s*$");
    private static final Pattern LINE_NUMBER = Pattern.compile(":\\d+\\)");
    private static final Pattern MODULE_PREFIX = Pattern.compile("^[^/]*//|^[^/]*/");
    private static final Pattern LAMBDA = Pattern.compile("\\$\\$Lambda[$/][^.(]*");
    private static final Pattern NUMBERED = Pattern.compile("(GeneratedMethodAccessor|\\$Proxy|\\$)\\d+");
    private static final Pattern GENERATED = Pattern.compile("\\$\\$_?\\w*Subclass|0x[0-9a-fA-F]+");
    private static final Pattern UUID_TEXT = Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    private static final Pattern HEX = Pattern.compile("\\b(0x)?[0-9a-fA-F]{12,}\\b");
    private static final Pattern NUMBER = Pattern.compile("\\d+");
    private static final Pattern QUOTED = Pattern.compile("'[^']*'|\"[^\"]*\"");

    /**
     * Copied for each key: looking SHA-256 up among the server's security providers costs more than hashing a key,
     * and a sweep makes thousands of keys.
     */
    private static final MessageDigest SHA_256;

    static {
        try {
            SHA_256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }

    /** The key of a reason with no error text yet: the same for every dead letter of the reason, so computed once. */
    private static final Map<DeadLetterReason, String> OF_REASON_ALONE = new EnumMap<>(DeadLetterReason.class);

    static {
        for (DeadLetterReason reason : DeadLetterReason.values()) {
            OF_REASON_ALONE.put(reason, hash(basis(reason, null, null, null)));
        }
    }

    private Fingerprint() {
    }

    /** A 16-hex-digit key. */
    public static String of(DeadLetterReason reason, String exceptionClass, String stackTrace, String errorMessage) {
        if (exceptionClass == null && stackTrace == null && errorMessage == null) {
            return OF_REASON_ALONE.get(reason);
        }
        return hash(basis(reason, exceptionClass, stackTrace, errorMessage));
    }

    /** What the key is made from, readable (the tests and the group's description use it). */
    static String basis(DeadLetterReason reason, String exceptionClass, String stackTrace, String errorMessage) {
        List<String> frames = frames(stackTrace);
        if (exceptionClass != null && !frames.isEmpty()) {
            // a failure wrapped at one place (every exception of a call rethrown as one kind) differs by its root cause
            return exceptionClass.strip() + "\n" + rootCause(stackTrace) + "\n" + String.join("\n", frames);
        }
        String text = errorMessage == null ? "" : errorMessage;
        text = UUID_TEXT.matcher(text).replaceAll("<id>");
        text = QUOTED.matcher(text).replaceAll("<text>");
        text = HEX.matcher(text).replaceAll("<hex>");
        text = NUMBER.matcher(text).replaceAll("#");
        text = text.length() > 200 ? text.substring(0, 200) : text;
        return reason + "\n" + (exceptionClass == null ? "" : exceptionClass.strip()) + "\n" + text.strip();
    }

    /** The class of the last "Caused by:" of a stack trace, or "" if it has none. */
    static String rootCause(String stackTrace) {
        String root = "";
        for (String line : stackTrace.lines().toList()) {
            if (line.startsWith("Caused by: ")) {
                String rest = line.substring("Caused by: ".length()).strip();
                int colon = rest.indexOf(':');
                root = (colon < 0 ? rest : rest.substring(0, colon)).strip();
            }
        }
        return root;
    }

    /** The top frame of a stack trace, normalised as in the fingerprint ({@code class.method}), or null. */
    public static String topFrame(String stackTrace) {
        List<String> frames = frames(stackTrace);
        return frames.isEmpty() ? null : frames.get(0);
    }

    /** The top frames of the first exception of a stack trace, each as {@code class.method}, normalised. */
    static List<String> frames(String stackTrace) {
        if (stackTrace == null) {
            return List.of();
        }
        return stackTrace.lines()
                .map(FRAME::matcher)
                .filter(java.util.regex.Matcher::matches)
                .map(m -> m.group(1))
                .map(frame -> MODULE_PREFIX.matcher(frame).replaceFirst(""))
                .map(frame -> LINE_NUMBER.matcher(frame).replaceAll(")"))
                .map(frame -> LAMBDA.matcher(frame).replaceAll("\\$\\$Lambda"))
                .map(frame -> NUMBERED.matcher(frame).replaceAll("$1#"))
                .map(frame -> GENERATED.matcher(frame).replaceAll("\\$#"))
                .limit(FRAMES)
                .toList();
    }

    private static String hash(String basis) {
        try {
            byte[] digest = ((MessageDigest) SHA_256.clone()).digest(basis.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("the JDK's SHA-256 can be copied", e);
        }
    }
}
