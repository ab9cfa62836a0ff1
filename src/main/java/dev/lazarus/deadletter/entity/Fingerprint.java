package dev.lazarus.deadletter.entity;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What a dead letter's cause looks like, as a short key that dead letters with the same cause share, so thousands of
 * them read as "3 causes": the exception's class, its root cause's and the top frames of its stack trace, normalised
 * so that what changes from one occurrence to the next (line numbers after a redeployment, generated class and lambda
 * names, addresses) does not split a group ({@link StackSummary}, which also says why only the stack trace proper
 * counts). The error message is not part of it where there are frames: it usually names the run, the document, the
 * id. A dead letter with no exception (a sweep's, a malformed message's) is keyed by its reason and its error text
 * with ids and numbers taken out.
 *
 * <p>Computed once, when the dead letter is recorded, and stored with what its group of causes shows (the top frame,
 * the root cause), so listing causes reads columns and parses nothing. {@link #RULE} is stored with them: a dead
 * letter recorded by an older rule has none, and the sweep computes its fingerprint again by {@link #ofStored}.
 *
 * @param key       16 hex digits
 * @param topFrame  the top frame ({@code class.method}), or null
 * @param rootCause the root cause's class, or null
 */
public record Fingerprint(String key, String topFrame, String rootCause) {

    /** How many frames of the stack trace count. */
    static final int FRAMES = 5;

    /**
     * The rule that computes fingerprints, stored with each: 2 takes frames from the stack trace proper only (V14);
     * the fingerprints of V11 (no rule stored) took them from the exception's message as well.
     */
    public static final int RULE = 2;

    /** Characters of an error text that are looked at for a key without frames (of which the first 200 count). */
    static final int MESSAGE_LOOKED_AT = 1_000;

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

    /** The fingerprint of a reason with no error yet: the same for every dead letter of the reason, so computed once. */
    private static final Map<DeadLetterReason, Fingerprint> OF_REASON_ALONE = new EnumMap<>(DeadLetterReason.class);

    static {
        for (DeadLetterReason reason : DeadLetterReason.values()) {
            OF_REASON_ALONE.put(reason, new Fingerprint(hash(basis(reason, null, null, StackSummary.NONE)), null, null));
        }
    }

    /** Of a dead letter whose stack trace is summed up ({@link StackSummary#of(Throwable)} when it is recorded). */
    public static Fingerprint of(DeadLetterReason reason, String exceptionClass, String errorMessage, StackSummary stack) {
        StackSummary summary = stack == null ? StackSummary.NONE : stack;
        if (exceptionClass == null && errorMessage == null && summary.frames().isEmpty()) {
            return OF_REASON_ALONE.get(reason);
        }
        return new Fingerprint(hash(basis(reason, exceptionClass, errorMessage, summary)), summary.topFrame(), summary.rootCauseOrNull());
    }

    /**
     * Of a dead letter as it is stored, its stack trace as text ({@link StackSummary#ofText}, headed by its class and
     * the message it was printed with: a loop guard's dead letter stores that message after its own words).
     */
    public static Fingerprint ofStored(DeadLetterReason reason, String exceptionClass, String errorMessage, String stackTrace) {
        StackSummary stack = StackSummary.ofText(stackTrace, exceptionClass, errorMessage);
        if (stack.frames().isEmpty() && reason == DeadLetterReason.REQUEUE_LIMIT) {
            stack = StackSummary.ofText(stackTrace, exceptionClass, DeadLetter.errorBeforeLoopGuard(errorMessage));
        }
        return of(reason, exceptionClass, errorMessage, stack);
    }

    /** What the key is made from, readable (the tests use it). */
    static String basis(DeadLetterReason reason, String exceptionClass, String errorMessage, StackSummary stack) {
        if (exceptionClass != null && !stack.frames().isEmpty()) {
            // a failure wrapped at one place (every exception of a call rethrown as one kind) differs by its root cause
            return exceptionClass.strip() + "\n" + stack.rootCause() + "\n" + String.join("\n", stack.frames());
        }
        String text = errorMessage == null ? "" : errorMessage;
        text = text.length() > MESSAGE_LOOKED_AT ? text.substring(0, MESSAGE_LOOKED_AT) : text;
        text = UUID_TEXT.matcher(text).replaceAll("<id>");
        text = QUOTED.matcher(text).replaceAll("<text>");
        text = HEX.matcher(text).replaceAll("<hex>");
        text = NUMBER.matcher(text).replaceAll("#");
        text = text.length() > 200 ? text.substring(0, 200) : text;
        return reason + "\n" + (exceptionClass == null ? "" : exceptionClass.strip()) + "\n" + text.strip();
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
