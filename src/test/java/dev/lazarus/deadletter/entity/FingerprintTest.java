package dev.lazarus.deadletter.entity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class FingerprintTest {

    private static final String PARSE_FAILED = """
            java.lang.IllegalStateException: could not parse document 4711 (run 3c24cfc1-54d1-47b0-8328-648ae833d959)
            \tat deployment.lazarus.war//dev.lazarus.demo.control.ParseDocument.handle(ParseDocument.java:42)
            \tat deployment.lazarus.war//dev.lazarus.demo.control.ParseDocument$$Lambda$1234/0x00000008012a4c40.apply(Unknown Source)
            \tat deployment.lazarus.war//dev.lazarus.pipeline.control.StepProcessor.execute(StepProcessor.java:301)
            \tat java.base/jdk.internal.reflect.GeneratedMethodAccessor80.invoke(Unknown Source)
            \tat deployment.lazarus.war//dev.lazarus.pipeline.control.StepProcessor.process(StepProcessor.java:160)
            \tat deployment.lazarus.war//dev.lazarus.pipeline.boundary.StepConsumer.onMessage(StepConsumer.java:57)
            """;

    @Test
    void theSameCauseAfterARedeploymentHasTheSameFingerprint() {
        String redeployed = PARSE_FAILED.replace(":42)", ":45)").replace("$$Lambda$1234/0x00000008012a4c40", "$$Lambda$987/0x0000000801aa0000")
                .replace("GeneratedMethodAccessor80", "GeneratedMethodAccessor113").replace("4711", "4712").replace("3c24cfc1", "9d00aa11");
        assertEquals(Fingerprint.of(DeadLetterReason.RETRIES_EXHAUSTED, "java.lang.IllegalStateException", PARSE_FAILED, "could not parse 4711"),
                Fingerprint.of(DeadLetterReason.RETRIES_EXHAUSTED, "java.lang.IllegalStateException", redeployed, "could not parse 4712"));
    }

    @Test
    void anotherExceptionOrAnotherPlaceIsAnotherCause() {
        String fingerprint = Fingerprint.of(DeadLetterReason.RETRIES_EXHAUSTED, "java.lang.IllegalStateException", PARSE_FAILED, "x");
        assertNotEquals(fingerprint, Fingerprint.of(DeadLetterReason.RETRIES_EXHAUSTED, "java.io.IOException", PARSE_FAILED, "x"));
        assertNotEquals(fingerprint, Fingerprint.of(DeadLetterReason.RETRIES_EXHAUSTED, "java.lang.IllegalStateException",
                PARSE_FAILED.replace("ParseDocument.handle", "ParseDocument.tokenize"), "x"));
    }

    @Test
    void aFailureWrappedAtOnePlaceIsSplitByItsRootCause() {
        String wrapped = PARSE_FAILED + "Caused by: java.net.ConnectException: Connection refused\n\tat java.base/sun.nio.ch.Net.connect0(Native Method)\n";
        String other = PARSE_FAILED + "Caused by: java.io.EOFException: truncated\n\tat java.base/java.io.DataInputStream.readFully(DataInputStream.java:210)\n";
        assertEquals("java.net.ConnectException", Fingerprint.rootCause(wrapped));
        assertNotEquals(Fingerprint.of(DeadLetterReason.RETRIES_EXHAUSTED, "java.lang.IllegalStateException", wrapped, "x"),
                Fingerprint.of(DeadLetterReason.RETRIES_EXHAUSTED, "java.lang.IllegalStateException", other, "x"));
    }

    @Test
    void onlyTheTopFramesCountNormalisedToClassAndMethod() {
        assertEquals(java.util.List.of("dev.lazarus.demo.control.ParseDocument.handle", "dev.lazarus.demo.control.ParseDocument$$Lambda.apply",
                        "dev.lazarus.pipeline.control.StepProcessor.execute", "jdk.internal.reflect.GeneratedMethodAccessor#.invoke",
                        "dev.lazarus.pipeline.control.StepProcessor.process"),
                Fingerprint.frames(PARSE_FAILED));
        // what happens below the top frames (another caller) does not split the group
        assertEquals(Fingerprint.of(DeadLetterReason.RETRIES_EXHAUSTED, "E", PARSE_FAILED, "x"),
                Fingerprint.of(DeadLetterReason.RETRIES_EXHAUSTED, "E", PARSE_FAILED.replace("StepConsumer.onMessage", "OtherConsumer.onMessage"), "x"));
    }

    @Test
    void withoutAStackTraceTheReasonAndTheErrorWithoutIdsAndNumbersAreTheCause() {
        String stuck = Fingerprint.of(DeadLetterReason.STUCK_IN_PROGRESS, null, null,
                "run 3c24cfc1-54d1-47b0-8328-648ae833d959 IN_PROGRESS at step 'parse' with no heartbeat for 312 s (limit 300 s)");
        assertEquals(stuck, Fingerprint.of(DeadLetterReason.STUCK_IN_PROGRESS, null, null,
                "run 9d00aa11-54d1-47b0-8328-648ae833d959 IN_PROGRESS at step 'index' with no heartbeat for 1203 s (limit 300 s)"));
        assertNotEquals(stuck, Fingerprint.of(DeadLetterReason.WAITING_TOO_LONG, null, null,
                "run 3c24cfc1-54d1-47b0-8328-648ae833d959 IN_PROGRESS at step 'parse' with no heartbeat for 312 s (limit 300 s)"));
        assertTrue(Fingerprint.of(DeadLetterReason.MALFORMED_MESSAGE, null, null, null).matches("[0-9a-f]{16}"));
    }
}
