package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.jms.Message;
import jakarta.jms.TextMessage;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Every way a step can die ends in the step's own DLQ with a diagnostics row that says why. */
class DeadLetteringIT extends LazarusIT {

    @Test
    void poisonMessageLandsInItsOwnDlqAfterExactlyTheStepsMaxAttempts() throws Exception {
        String id = operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"always\"}}}");
        JsonObject run = awaitRun(id, "DEAD_LETTERED");

        JsonObject deadLetter = run.getJsonObject("deadLetter");
        assertEquals("RETRIES_EXHAUSTED", deadLetter.getString("reason"));
        assertEquals("parse", deadLetter.getString("step"));
        assertEquals(PARSE, deadLetter.getString("queue"));
        assertEquals(3, deadLetter.getInt("attempts"), "parse allows 3 deliveries");
        assertEquals("java.lang.IllegalStateException", deadLetter.getString("exceptionClass"));
        assertTrue(deadLetter.getString("stackTrace").contains("ParseDocument"), "the stack trace names the handler");
        assertNotNull(deadLetter.getString("messageId"));
        JsonObject snapshot = deadLetter.getJsonObject("runSnapshot"); // a JSON object, not JSON inside a string
        assertEquals(id, snapshot.getString("id"));
        assertEquals("parse", snapshot.getString("currentStep"));
        assertTrue(snapshot.get("payload") instanceof JsonObject, "the payload is embedded as JSON too");

        JsonObject parse = executions(run, "parse").get(0);
        assertEquals("FAILED", parse.getString("state"));
        Duration spread = Duration.between(Instant.parse(parse.getString("firstAttemptAt")), Instant.parse(parse.getString("lastAttemptAt")));
        assertTrue(spread.compareTo(Duration.ofMillis(2900)) >= 0, "parse backs off 1 s then 2 s, took only " + spread);

        // Parked by Lazarus after the last attempt: exactly one copy, in DLQ.<parse queue>, marked with its origin.
        List<Message> parked = Await.until("the message in DLQ." + PARSE, Duration.ofSeconds(10),
                () -> broker.messagesOfRun("DLQ." + PARSE, id), m -> !m.isEmpty());
        assertEquals(1, parked.size());
        assertEquals(PARSE, parked.get(0).getStringProperty("_AMQ_ORIG_QUEUE"));
        assertTrue(broker.messagesOfRun(PARSE, id).isEmpty(), "nothing left on the step queue");
        assertTrue(broker.messagesOfRun("DLQ." + FETCH, id).isEmpty(), "no other DLQ holds it");
    }

    @Test
    void garbageDroppedIntoAStepQueueIsDeadLetteredAtOnceAndNothingElseBreaks() throws Exception {
        String marker = "not a step message " + UUID.randomUUID();
        broker.send(FETCH, marker);

        JsonObject deadLetter = Await.until("a MALFORMED_MESSAGE dead letter", Duration.ofSeconds(30),
                () -> viewer.get("api/dead-letters?reason=MALFORMED_MESSAGE&limit=500").ok().json().getJsonArray("items")
                        .stream().map(v -> viewer.get("api/dead-letters/" + v.asJsonObject().getInt("id")).ok().json())
                        .filter(d -> marker.equals(d.getString("messageBody", null))).findFirst().orElse(null),
                d -> d != null);
        assertEquals(1, deadLetter.getInt("attempts"), "no retry burnt on a message that can never succeed");
        assertEquals(FETCH, deadLetter.getString("queue"));
        assertTrue(deadLetter.getString("errorMessage").contains("not JSON"), deadLetter.getString("errorMessage"));

        List<Message> parked = broker.browse("DLQ." + FETCH, null).stream()
                .filter(m -> marker.equals(text(m))).toList();
        assertEquals(1, parked.size(), "the message itself is kept in the DLQ for the operator");
        assertEquals("MALFORMED_MESSAGE", parked.get(0).getStringProperty("lazarusReason"));

        // the consumers are still healthy
        awaitRun(operator.startRun("{}"), "COMPLETED");
    }

    @Test
    void stepMessageForARunTheDatabaseDoesNotHaveIsDeadLetteredAsRunNotFound() {
        String ghost = UUID.randomUUID().toString();
        broker.send(PARSE, "{\"runId\":\"" + ghost + "\",\"step\":\"parse\",\"generation\":1}");

        JsonObject deadLetter = Await.until("a RUN_NOT_FOUND dead letter", Duration.ofSeconds(60),
                () -> viewer.get("api/dead-letters?runId=" + ghost).ok().json().getJsonArray("items"),
                items -> !items.isEmpty()).getJsonObject(0);
        assertEquals("RUN_NOT_FOUND", deadLetter.getString("reason"));
        assertTrue(deadLetter.getInt("attempts") >= 5, "looked for again a few times (a late commit may still show it): " + deadLetter);
        assertTrue(deadLetter.getString("errorMessage").contains("not shown after"), deadLetter.getString("errorMessage"));
        // sent past the API, it names the run only in its body
        assertEquals(1, broker.browse("DLQ." + PARSE, null).stream().filter(m -> String.valueOf(text(m)).contains(ghost)).count());
    }

    @Test
    void messageNamingAStepTheQueueDoesNotServeIsDeadLetteredAsUnknownStep() {
        String id = UUID.randomUUID().toString();
        broker.send(INDEX, "{\"runId\":\"" + id + "\",\"step\":\"publish\",\"generation\":1}");

        JsonObject deadLetter = Await.until("an UNKNOWN_STEP dead letter", Duration.ofSeconds(30),
                () -> viewer.get("api/dead-letters?runId=" + id).ok().json().getJsonArray("items"),
                items -> !items.isEmpty()).getJsonObject(0);
        assertEquals("UNKNOWN_STEP", deadLetter.getString("reason"));
        assertTrue(deadLetter.getString("errorMessage").contains("publish"), deadLetter.getString("errorMessage"));
    }

    @Test
    void declaredPermanentFailureIsDeadLetteredOnTheFirstAttempt() {
        String id = operator.startRun("{\"failures\":{\"index\":{\"mode\":\"permanent\"}}}");
        JsonObject run = awaitRun(id, "DEAD_LETTERED");

        JsonObject deadLetter = run.getJsonObject("deadLetter");
        assertEquals("NON_RETRYABLE", deadLetter.getString("reason"));
        assertEquals(1, deadLetter.getInt("attempts"), "index allows 5, a permanent failure uses one");
        assertEquals(1, Await.until("the message in DLQ." + INDEX, Duration.ofSeconds(15),
                () -> broker.messagesOfRun("DLQ." + INDEX, id), m -> !m.isEmpty()).size());
    }

    @Test
    void aRunWhosePayloadGrowsUnderEscapingIsStillDeadLettered() {
        // fetch's output repeats the URL: about 180 000 characters of JSON, as large as a payload gets
        String id = operator.startRun("{\"url\":\"" + "\\\"".repeat(30_000) + "\",\"failures\":{\"parse\":{\"mode\":\"always\"}}}");
        JsonObject run = awaitRun(id, "DEAD_LETTERED");
        JsonObject deadLetter = viewer.get("api/dead-letters/" + run.getJsonObject("deadLetter").getInt("id")).ok().json();
        assertEquals("RETRIES_EXHAUSTED", deadLetter.getString("reason"));
        JsonObject snapshot = deadLetter.getJsonObject("runSnapshot");
        assertTrue(snapshot.toString().length() <= 200_000, "the snapshot fits its column");
        assertEquals(id, snapshot.getString("id"), "and is still JSON");
    }

    private static String text(Message message) {
        try {
            return message instanceof TextMessage t ? t.getText() : null;
        } catch (Exception e) {
            return null;
        }
    }
}
