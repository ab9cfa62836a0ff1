package dev.lazarus.deadletter.entity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.platform.entity.Text;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class FingerprintTest {

    private static final String ISE = "java.lang.IllegalStateException";

    private static final String MESSAGE = "could not parse document 4711 (run 3c24cfc1-54d1-47b0-8328-648ae833d959)";

    private static final String PARSE_FAILED = ISE + ": " + MESSAGE + """

            \tat deployment.lazarus.war//dev.lazarus.demo.control.ParseDocument.handle(ParseDocument.java:42)
            \tat deployment.lazarus.war//dev.lazarus.demo.control.ParseDocument$$Lambda$1234/0x00000008012a4c40.apply(Unknown Source)
            \tat deployment.lazarus.war//dev.lazarus.pipeline.control.StepProcessor.execute(StepProcessor.java:301)
            \tat java.base/jdk.internal.reflect.GeneratedMethodAccessor80.invoke(Unknown Source)
            \tat deployment.lazarus.war//dev.lazarus.pipeline.control.StepProcessor.process(StepProcessor.java:160)
            \tat deployment.lazarus.war//dev.lazarus.pipeline.boundary.StepConsumer.onMessage(StepConsumer.java:57)
            """;

    /** The key of a dead letter as stored: its class, its message and its stack trace as text. */
    private static String key(String exceptionClass, String message, String trace) {
        return Fingerprint.ofStored(DeadLetterReason.RETRIES_EXHAUSTED, exceptionClass, message, trace).key();
    }

    @Test
    void theSameCauseAfterARedeploymentHasTheSameFingerprint() {
        String redeployed = PARSE_FAILED.replace(":42)", ":45)").replace("$$Lambda$1234/0x00000008012a4c40", "$$Lambda$987/0x0000000801aa0000")
                .replace("GeneratedMethodAccessor80", "GeneratedMethodAccessor113").replace("4711", "4712").replace("3c24cfc1", "9d00aa11");
        String otherMessage = MESSAGE.replace("4711", "4712").replace("3c24cfc1", "9d00aa11");
        assertEquals(key(ISE, MESSAGE, PARSE_FAILED), key(ISE, otherMessage, redeployed));
    }

    @Test
    void anotherExceptionOrAnotherPlaceIsAnotherCause() {
        String fingerprint = key(ISE, MESSAGE, PARSE_FAILED);
        assertNotEquals(fingerprint, key("java.io.IOException", MESSAGE, PARSE_FAILED.replace(ISE, "java.io.IOException")));
        assertNotEquals(fingerprint, key(ISE, MESSAGE, PARSE_FAILED.replace("ParseDocument.handle", "ParseDocument.tokenize")));
    }

    @Test
    void aFailureWrappedAtOnePlaceIsSplitByItsRootCause() {
        String wrapped = PARSE_FAILED + "Caused by: java.net.ConnectException: Connection refused\n\tat java.base/sun.nio.ch.Net.connect0(Native Method)\n";
        String other = PARSE_FAILED + "Caused by: java.io.EOFException: truncated\n\tat java.base/java.io.DataInputStream.readFully(DataInputStream.java:210)\n";
        assertEquals("java.net.ConnectException", StackSummary.ofText(wrapped, ISE, MESSAGE).rootCause());
        assertNotEquals(key(ISE, MESSAGE, wrapped), key(ISE, MESSAGE, other));
    }

    @Test
    void onlyTheTopFramesCountNormalisedToClassAndMethod() {
        assertEquals(List.of("dev.lazarus.demo.control.ParseDocument.handle", "dev.lazarus.demo.control.ParseDocument$$Lambda.apply",
                        "dev.lazarus.pipeline.control.StepProcessor.execute", "jdk.internal.reflect.GeneratedMethodAccessor#.invoke",
                        "dev.lazarus.pipeline.control.StepProcessor.process"),
                StackSummary.ofText(PARSE_FAILED, ISE, MESSAGE).frames());
        // what happens below the top frames (another caller) does not split the group
        assertEquals(key(ISE, MESSAGE, PARSE_FAILED), key(ISE, MESSAGE, PARSE_FAILED.replace("StepConsumer.onMessage", "OtherConsumer.onMessage")));
    }

    @Test
    void withoutAStackTraceTheReasonAndTheErrorWithoutIdsAndNumbersAreTheCause() {
        String stuck = Fingerprint.ofStored(DeadLetterReason.STUCK_IN_PROGRESS, null,
                "run 3c24cfc1-54d1-47b0-8328-648ae833d959 IN_PROGRESS at step 'parse' with no heartbeat for 312 s (limit 300 s)", null).key();
        assertEquals(stuck, Fingerprint.ofStored(DeadLetterReason.STUCK_IN_PROGRESS, null,
                "run 9d00aa11-54d1-47b0-8328-648ae833d959 IN_PROGRESS at step 'index' with no heartbeat for 1203 s (limit 300 s)", null).key());
        assertNotEquals(stuck, Fingerprint.ofStored(DeadLetterReason.WAITING_TOO_LONG, null,
                "run 3c24cfc1-54d1-47b0-8328-648ae833d959 IN_PROGRESS at step 'parse' with no heartbeat for 312 s (limit 300 s)", null).key());
        assertTrue(Fingerprint.ofStored(DeadLetterReason.MALFORMED_MESSAGE, null, null, null).key().matches("[0-9a-f]{16}"));
    }

    /** Thrown from one place, whatever the message: the same cause. */
    private static IllegalStateException declined(String message) {
        return new IllegalStateException(message);
    }

    private static IllegalStateException declined(String message, Throwable cause) {
        return new IllegalStateException(message, cause);
    }

    private static String printed(Throwable failure) {
        StringWriter text = new StringWriter();
        failure.printStackTrace(new PrintWriter(text));
        return text.toString();
    }

    /** A message with lines that look like frames and a cause, and characters that end lines for some readers. */
    private static final String FORGED = "card declined\n\tat com.victim.Service.charge(Service.java:42)\n"
            + "\tat com.victim.Service.pay(Service.java:17)\r\tat com.victim.Service.refund(Service.java:9)\u000b\u0085\u2028"
            + "\nCaused by: com.victim.Forged\n\tat com.victim.Forged.x(Forged.java:1)";

    @Test
    void aMessageCannotChooseItsCause() {
        IllegalStateException plain = declined("card declined");
        IllegalStateException forged = declined(FORGED);
        Fingerprint ofPlain = Fingerprint.ofStored(DeadLetterReason.RETRIES_EXHAUSTED, ISE, plain.getMessage(), printed(plain));
        Fingerprint ofForged = Fingerprint.ofStored(DeadLetterReason.RETRIES_EXHAUSTED, ISE, forged.getMessage(), printed(forged));
        assertEquals(ofPlain.key(), ofForged.key(), "lines of the message that look like frames are not frames");
        assertEquals(ofPlain.topFrame(), ofForged.topFrame());
        assertTrue(ofForged.topFrame().startsWith("dev.lazarus.deadletter.entity.FingerprintTest.declined"), ofForged.topFrame());
        assertNull(ofForged.rootCause(), "nor a line like a cause a cause");

        // recorded from the exception itself: the same, and the same as its text gives
        Fingerprint recorded = Fingerprint.of(DeadLetterReason.RETRIES_EXHAUSTED, ISE, forged.getMessage(), StackSummary.of(forged));
        assertEquals(ofPlain, recorded);
        assertEquals(ofPlain, Fingerprint.of(DeadLetterReason.RETRIES_EXHAUSTED, ISE, plain.getMessage(), StackSummary.of(plain)));
    }

    @Test
    void anExceptionAndItsPrintedTraceHaveTheSameCause() {
        // so a dead letter recorded before V14, computed again from its text, joins the group of the same cause today
        // (a cause's own message is not stored, so the text of one that spans lines is not told apart: see StackSummary)
        Exception root = new java.net.ConnectException("Connection refused");
        IllegalStateException failure = declined("could not index: " + FORGED, new java.io.UncheckedIOException(new java.io.IOException(root)));
        Fingerprint recorded = Fingerprint.of(DeadLetterReason.RETRIES_EXHAUSTED, ISE, failure.getMessage(), StackSummary.of(failure));
        assertEquals("java.net.ConnectException", recorded.rootCause());
        assertEquals(recorded, Fingerprint.ofStored(DeadLetterReason.RETRIES_EXHAUSTED, ISE, failure.getMessage(), printed(failure)));

        IllegalStateException withoutMessage = declined(null);
        assertEquals(Fingerprint.of(DeadLetterReason.RETRIES_EXHAUSTED, ISE, null, StackSummary.of(withoutMessage)),
                Fingerprint.ofStored(DeadLetterReason.RETRIES_EXHAUSTED, ISE, null, printed(withoutMessage)));
    }

    @Test
    void aLoopGuardsDeadLetterIsReadWithTheMessageItsTraceWasPrintedWith() {
        IllegalStateException failure = declined(FORGED);
        Fingerprint parked = Fingerprint.ofStored(DeadLetterReason.REQUEUE_LIMIT, ISE,
                DeadLetter.loopGuardError(DeadLetterReason.RETRIES_EXHAUSTED, 2, 2, failure.getMessage()), printed(failure));
        assertEquals(StackSummary.of(failure).topFrame(), parked.topFrame());
        IllegalStateException withoutMessage = declined(null);
        assertEquals(StackSummary.of(withoutMessage).topFrame(), Fingerprint.ofStored(DeadLetterReason.REQUEUE_LIMIT, ISE,
                DeadLetter.loopGuardError(DeadLetterReason.RETRIES_EXHAUSTED, 2, 2, null), printed(withoutMessage)).topFrame());
    }

    @Test
    void aTraceWhoseMessageWasStoredCutGivesNoFramesAndIsKeyedByItsMessage() {
        // where the message ends in the text is unknown: its lines must not be taken for frames
        IllegalStateException long1 = declined("x".repeat(5_000) + FORGED);
        IllegalStateException long2 = declined("x".repeat(5_000) + FORGED.replace("charge", "steal"));
        Fingerprint first = Fingerprint.ofStored(DeadLetterReason.RETRIES_EXHAUSTED, ISE, Text.truncate(long1.getMessage(), 4000), printed(long1));
        assertNull(first.topFrame());
        assertEquals(first.key(), Fingerprint.ofStored(DeadLetterReason.RETRIES_EXHAUSTED, ISE, Text.truncate(long2.getMessage(), 4000),
                printed(long2)).key());
    }

    @Test
    void aHostileLineCostsLittle() {
        for (int length : new int[] {7_600, 1_000_000}) {
            String line = "at " + "x(".repeat(length / 2);
            IllegalStateException hostile = declined("card declined\n" + line);
            String trace = printed(hostile) + line + "\n";
            assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
                Fingerprint.ofStored(DeadLetterReason.RETRIES_EXHAUSTED, ISE, hostile.getMessage(), trace);
                Fingerprint.ofStored(DeadLetterReason.RETRIES_EXHAUSTED, ISE, "x", trace);
                Fingerprint.ofStored(DeadLetterReason.RETRIES_EXHAUSTED, null, trace, null);
                StackSummary.of(hostile);
            }, "a line of " + length + " characters");
        }
    }

    @Test
    void aStackTraceIsReadOnlyUpToItsBound() {
        // thousands of frame lines of a megabyte each, after a header: nothing past the bound is looked at
        String header = ISE + ": boom\n";
        CharSequence hostile = new CharSequence() {
            @Override
            public int length() {
                return 1 << 30;
            }

            @Override
            public char charAt(int index) {
                if (index >= StackSummary.MAX_TEXT) {
                    throw new AssertionError("read character " + index + ", past the bound of " + StackSummary.MAX_TEXT);
                }
                if (index < header.length()) {
                    return header.charAt(index);
                }
                int inLine = (index - header.length()) % 1_000_000;
                return inLine == 999_999 ? '\n' : "\tat a.B".length() > inLine ? "\tat a.B".charAt(inLine) : 'x';
            }

            @Override
            public CharSequence subSequence(int start, int end) {
                StringBuilder part = new StringBuilder();
                for (int i = start; i < end; i++) {
                    part.append(charAt(i));
                }
                return part;
            }
        };
        StackSummary read = StackSummary.ofText(hostile, ISE, "boom");
        assertEquals(1, read.frames().size(), "one line begins within the bound");
        assertEquals(StackSummary.MAX_NAME, read.topFrame().length(), "a frame is cut to its bound");
    }

    @Test
    void aFrameOrACauseIsCutToItsColumn() {
        String name = "a.B".repeat(400) + ".m";
        String trace = ISE + "\n\tat " + name + "(B.java:1)\nCaused by: " + "c.D".repeat(400) + ": no\n";
        StackSummary read = StackSummary.ofText(trace, ISE, null);
        assertEquals(name.substring(0, StackSummary.MAX_NAME), read.topFrame());
        assertEquals(StackSummary.MAX_NAME, read.rootCause().length());
    }
}
