package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

    /**
     * PostgreSQL cannot keep a NUL character in text, and a sender or a handler can put one anywhere: in a message body,
     * in an exception's message. The dead letter is still recorded, each NUL shown as U+FFFD; the message itself stays
     * in its DLQ as it came.
     */
    @Test
    void aNulCharacterInAMessageBodyOrAHandlersErrorIsRecordedAsAReplacementCharacter() throws Exception {
        String marker = "nul-" + UUID.randomUUID();
        broker.send(FETCH, marker + "\u0000after");
        JsonObject garbage = Await.until("the garbage's MALFORMED_MESSAGE dead letter", Duration.ofSeconds(30),
                () -> viewer.get("api/dead-letters?reason=MALFORMED_MESSAGE&limit=500").ok().json().getJsonArray("items")
                        .stream().map(v -> viewer.get("api/dead-letters/" + v.asJsonObject().getInt("id")).ok().json())
                        .filter(d -> d.getString("messageBody", "").startsWith(marker)).findFirst().orElse(null),
                d -> d != null);
        assertEquals(marker + "\uFFFDafter", garbage.getString("messageBody"));
        assertEquals(1, broker.browse("DLQ." + FETCH, null).stream().filter(m -> (marker + "\u0000after").equals(text(m))).count(),
                "the message is kept in its DLQ as it came");

        String run = operator.startRun("{\"failures\":{\"fetch\":{\"mode\":\"always\",\"message\":\"bad\\u0000byte " + marker + "\"}}}");
        JsonObject stopped = awaitRun(run, "DEAD_LETTERED").getJsonObject("deadLetter");
        assertEquals("RETRIES_EXHAUSTED", stopped.getString("reason"));
        assertTrue(stopped.getString("errorMessage").startsWith("bad\uFFFDbyte " + marker), stopped.getString("errorMessage"));
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

    /**
     * A step's error message is made from what it was handling, so it can hold anything: lines like frames (another
     * for each run), and a line of 7 600 characters starting "at " that a backtracking pattern took a long time over.
     * The cause is where the exception was thrown, the same for all of them, and reading the causes, four viewers at
     * once, costs little.
     */
    @Test
    void aMessageCannotChooseItsCauseNorMakeTheCausesSlow() throws Exception {
        String marker = "card declined " + UUID.randomUUID();
        String hostile = "at " + "x(".repeat(3_800);
        List<String> runs = new java.util.ArrayList<>();
        for (int i = 0; i < 30; i++) {
            String message = marker + "\n\tat com.victim.Service.charge" + i + "(Service.java:42)\n" + hostile;
            runs.add(operator.startRun(jakarta.json.Json.createObjectBuilder().add("failures", jakarta.json.Json.createObjectBuilder()
                    .add("parse", jakarta.json.Json.createObjectBuilder().add("mode", "always").add("message", message))).build().toString()));
        }
        runs.forEach(id -> awaitRun(id, "DEAD_LETTERED"));

        java.util.concurrent.ExecutorService viewers = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            List<java.util.concurrent.Future<JsonObject>> reads = new java.util.ArrayList<>();
            for (int i = 0; i < 4; i++) {
                reads.add(viewers.submit(() -> viewer.get("api/dead-letters/causes?error=" + marker.replace(" ", "%20")).ok().json()));
            }
            for (java.util.concurrent.Future<JsonObject> read : reads) {
                // a hang guard, not a measure: each request also gives up after 30 s (Api)
                JsonObject causes = read.get(2, java.util.concurrent.TimeUnit.MINUTES);
                assertEquals(1, causes.getInt("causes"), () -> "the message's lines are not frames, yet the causes are at "
                        + causes.getJsonArray("groups").stream().map(g -> g.asJsonObject().getString("topFrame", null)).toList());
                assertEquals(30, causes.getInt("deadLetters"));
                JsonObject group = causes.getJsonArray("groups").getJsonObject(0);
                assertEquals("java.lang.IllegalStateException", group.getString("exceptionClass"));
                assertEquals("dev.lazarus.demo.control.DemoFailures.apply", group.getString("topFrame"), "where it was thrown");
            }
        } finally {
            viewers.shutdownNow();
        }

        AdminPage page = new AdminPage(base);
        page.signIn("viewer", "viewer-pw");
        String html = page.open("admin/dead-letters.xhtml?error=" + java.net.URLEncoder.encode(marker, java.nio.charset.StandardCharsets.UTF_8)).body();
        String groups = html.substring(html.indexOf("cause-groups"), html.indexOf("</table>", html.indexOf("cause-groups")));
        // the top frame is shown as code; the example's error text (which holds the made-up lines) is not
        assertTrue(groups.contains("<code>at dev.lazarus.demo.control.DemoFailures.apply</code>"), "the page shows the stored top frame");
        assertFalse(groups.contains("<code>at com.victim"), "and none the message made up");
    }

    private static String text(Message message) {
        try {
            return message instanceof TextMessage t ? t.getText() : null;
        } catch (Exception e) {
            return null;
        }
    }
}
