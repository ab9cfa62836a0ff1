package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A run moves through its steps, one message and one transaction per step; transient failures retry. */
class PipelineProcessingIT extends LazarusIT {

    @Test
    void healthyRunCompletesEveryStepInOrderPassingThePayloadAlong() {
        String id = operator.startRun("{\"url\":\"https://example.org/report.html\"}");
        JsonObject run = awaitRun(id, "COMPLETED");

        List<String> steps = run.getJsonArray("steps").stream().map(s -> s.asJsonObject().getString("step")).toList();
        assertEquals(List.of("fetch", "parse", "index"), steps);
        run.getJsonArray("steps").forEach(s -> {
            assertEquals("COMPLETED", s.asJsonObject().getString("state"));
            assertEquals(1, s.asJsonObject().getInt("attempts"));
        });
        JsonObject payload = run.getJsonObject("payload");
        assertEquals("https://example.org/report.html", payload.getString("title"), "parse saw what fetch produced");
        assertTrue(payload.getInt("indexedTerms") > 0, "index saw what parse produced");
        assertEquals(id + ":index:3", payload.getString("indexKey"), "the third dispatch of the run: every step has its own");
        assertFalse(run.getBoolean("deadLettered"));
        assertTrue(broker.messagesOfRun("DLQ." + FETCH, id).isEmpty());
    }

    @Test
    void aDuplicateOfAStepMessageNeverRunsTheStepAgain() {
        String id = operator.startRun("{\"url\":\"https://example.org/once.html\"}");
        String indexKey = awaitRun(id, "COMPLETED").getJsonObject("payload").getString("indexKey");

        // the same dispatch once more, as a redelivery after a lost acknowledgement would bring it
        broker.send(INDEX, "{\"runId\":\"" + id + "\",\"step\":\"index\",\"generation\":1}");
        Await.until("the duplicate to be consumed", Duration.ofSeconds(30), () -> broker.messageCount(INDEX), n -> n == 0);

        JsonObject run = viewer.run(id);
        assertEquals("COMPLETED", run.getString("state"));
        assertEquals(1, executions(run, "index").size());
        assertEquals(1, executions(run, "index").get(0).getInt("attempts"), "the step did not run again");
        assertEquals(indexKey, run.getJsonObject("payload").getString("indexKey"));
        // kept as evidence on its own (see StrayMessagesIT); the run has no dead letter of its own
        JsonObject deadLetters = viewer.get("api/dead-letters?runId=" + id).ok().json();
        assertEquals(1, deadLetters.getInt("total"));
        assertEquals("STALE_MESSAGE", deadLetters.getJsonArray("items").getJsonObject(0).getString("reason"));
    }

    @Test
    void transientFailureIsRedeliveredWithTheStepsBackoffUntilItSucceeds() {
        String id = operator.startRun("{\"failures\":{\"fetch\":{\"mode\":\"transient\",\"succeedOnAttempt\":3}}}");
        JsonObject run = awaitRun(id, "COMPLETED");

        JsonObject fetch = executions(run, "fetch").get(0);
        assertEquals(3, fetch.getInt("attempts"));
        assertEquals("COMPLETED", fetch.getString("state"));
        // fetch's policy: 500 ms before the 2nd delivery, 1 s before the 3rd
        Duration spread = Duration.between(Instant.parse(fetch.getString("firstAttemptAt")), Instant.parse(fetch.getString("lastAttemptAt")));
        assertTrue(spread.compareTo(Duration.ofMillis(1400)) >= 0, "deliveries 1 to 3 took only " + spread);
        assertEquals(1, executions(run, "parse").get(0).getInt("attempts"));
    }
}
