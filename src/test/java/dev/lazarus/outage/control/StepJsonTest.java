package dev.lazarus.outage.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import java.io.StringReader;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Scripts read a step's fields by name: every one is written, null where there is nothing. */
class StepJsonTest {

    private final Jsonb jsonb = JsonbBuilder.create();

    private JsonObject written(StepOverview.Step step) {
        return Json.createReader(new StringReader(jsonb.toJson(step))).readObject();
    }

    @Test
    void aRunningStepNamesEveryFieldWithNullWhereThereIsNothing() {
        JsonObject json = written(new StepOverview.Step("p", "s", "q", "RUNNING", Instant.EPOCH, null, null, null, null, null,
                null, null, null, null, null, 0));
        for (String field : List.of("pipeline", "step", "queue", "state", "since", "by", "note", "cause", "waiting", "inFlight",
                "consumers", "dlqDepth", "queuePaused", "failureRate", "nextProbeAt", "probesFailed")) {
            assertTrue(json.containsKey(field), field + " in " + json);
        }
        assertEquals(JsonValue.NULL, json.get("cause"));
        assertTrue(!json.containsKey("isRunning") && !json.containsKey("running") && !json.containsKey("pausedOnTheBroker"),
                "only the named fields: " + json);
    }

    @Test
    void aRunningStepWhoseQueueABrokerPausedLongEnoughAgoIsPausedOnTheBrokerAndOneJustResumedIsNotYet() {
        Instant longAgo = Instant.now().minusSeconds(60);
        assertTrue(step("RUNNING", longAgo, true).isPausedOnTheBroker());
        assertTrue(!step("RUNNING", Instant.now(), true).isPausedOnTheBroker(), "resumed a moment ago: the brokers are read every 2 s");
        assertTrue(!step("PAUSED", longAgo, true).isPausedOnTheBroker(), "paused by Lazarus: as it should be");
        assertTrue(!step("RUNNING", longAgo, false).isPausedOnTheBroker());
        assertTrue(!step("RUNNING", longAgo, null).isPausedOnTheBroker(), "unknown: a broker did not answer");
    }

    private static StepOverview.Step step(String state, Instant since, Boolean queuePaused) {
        return new StepOverview.Step("p", "s", "q", state, since, null, null, null, 0L, 0L, 1L, 0L, queuePaused, null, null, 0);
    }

    @Test
    void aHeldStepsCauseIsAnObjectWithItsFingerprintExceptionAndExample() {
        JsonObject json = written(new StepOverview.Step("p", "s", "q", "HELD", Instant.EPOCH, "hold", null,
                new StepOverview.Cause("abc", "java.net.ConnectException", null), 3L, 0L, 8L, 0L, true, 0.9, Instant.EPOCH, 1));
        JsonObject cause = json.getJsonObject("cause");
        assertEquals("abc", cause.getString("fingerprint"));
        assertEquals("java.net.ConnectException", cause.getString("exceptionClass"));
        assertEquals(JsonValue.NULL, cause.get("example"));
    }
}
