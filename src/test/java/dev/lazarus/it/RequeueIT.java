package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.it.Api.Response;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Requeue brings a dead-lettered run back once its cause is gone: the demo's "until-requeued" failure plays
 * an outage that the operator fixed before pressing Requeue.
 */
class RequeueIT extends LazarusIT {

    @Test
    void requeueOverTheApiMovesTheMessageBackExactlyOnceAndTheRunCompletes() {
        String id = operator.startRun("{\"failures\":{\"index\":{\"mode\":\"until-requeued\"}}}");
        long deadLetterId = awaitRun(id, "DEAD_LETTERED").getJsonObject("deadLetter").getInt("id");
        Await.until("the message in DLQ." + INDEX, Duration.ofSeconds(10), () -> broker.messagesOfRun("DLQ." + INDEX, id), m -> m.size() == 1);

        Response byViewer = viewer.post("api/dead-letters/" + deadLetterId + "/requeue", "");
        assertEquals(403, byViewer.status(), "a viewer may not requeue");

        JsonObject requeued = operator.post("api/dead-letters/" + deadLetterId + "/requeue", "").ok().json();
        assertEquals("REQUEUED", requeued.getString("status"));
        assertEquals("operator", requeued.getString("requeuedBy"), "who comes from the login, not the request");
        assertNotNull(requeued.getString("requeuedAt"));
        assertEquals("MOVED_FROM_DLQ", requeued.getString("requeueMethod"));
        assertTrue(broker.messagesOfRun("DLQ." + INDEX, id).isEmpty(), "the message left the DLQ");

        JsonObject run = awaitRun(id, "COMPLETED");
        assertEquals(1, run.getInt("requeueCount"));
        List<JsonObject> index = executions(run, "index");
        assertEquals(2, index.size(), "the failed dispatch is kept next to the requeued one");
        assertEquals("FAILED", index.get(0).getString("state"));
        assertEquals(5, index.get(0).getInt("attempts"));
        assertEquals("COMPLETED", index.get(1).getString("state"));
        assertEquals(1, index.get(1).getInt("attempts"), "attempts start again after a requeue");
        assertTrue(broker.messagesOfRun(INDEX, id).isEmpty() && broker.messagesOfRun("DLQ." + INDEX, id).isEmpty(),
                "no duplicate left anywhere");

        Response again = operator.post("api/dead-letters/" + deadLetterId + "/requeue", "");
        assertEquals(409, again.status(), "a dead letter is requeued once");
        assertTrue(again.json().getString("detail").contains("operator"), again.body());
    }

    @Test
    void anOperatorFixesThePayloadThenRequeuesAndBothPayloadsAreAudited() {
        String id = operator.startRun("{\"url\":\"http://example.org/broken\",\"failures\":{\"parse\":{\"mode\":\"always\"}}}");
        JsonObject stopped = awaitRun(id, "DEAD_LETTERED");
        long deadLetterId = stopped.getJsonObject("deadLetter").getInt("id");
        Await.until("the message in DLQ." + PARSE, Duration.ofSeconds(10), () -> broker.messagesOfRun("DLQ." + PARSE, id), m -> m.size() == 1);
        // the fix: the same input without what breaks it
        JsonObject fixed = Json.createObjectBuilder(stopped.getJsonObject("payload")).remove("failures").build();

        assertEquals(400, operator.post("api/dead-letters/" + deadLetterId + "/requeue", "{\"payload\":" + fixed + "}").status(),
                "a fix needs a note");
        assertEquals(400, operator.post("api/dead-letters/" + deadLetterId + "/requeue", "{\"payload\":[1],\"note\":\"n\"}").status(),
                "a payload is a JSON object");
        assertEquals(413, operator.post("api/dead-letters/" + deadLetterId + "/requeue", "{\"payload\":{\"big\":\"" + "x".repeat(70_000)
                + "\"},\"note\":\"n\"}").status(), "within lazarus.run.max-payload-bytes");
        assertEquals(403, viewer.post("api/dead-letters/" + deadLetterId + "/requeue", "{\"payload\":" + fixed + ",\"note\":\"n\"}").status());

        Response fixedRequeue = operator.post("api/dead-letters/" + deadLetterId + "/requeue", "{\"payload\":" + fixed
                + ",\"note\":\"removed the failure switch from the input\"}");
        assertEquals(200, fixedRequeue.status(), fixedRequeue.body());
        JsonObject run = awaitRun(id, "COMPLETED");
        assertEquals(1, run.getInt("requeueCount"), "counted like a requeue");
        JsonObject deadLetter = viewer.get("api/dead-letters/" + deadLetterId).ok().json();
        assertEquals("REQUEUED", deadLetter.getString("status"));
        assertEquals("PAYLOAD_EDITED", deadLetter.getString("requeueMethod"));
        JsonObject edit = deadLetter.getJsonArray("history").getValuesAs(JsonObject.class).stream()
                .filter(e -> e.getString("action").equals("PAYLOAD_EDITED")).findFirst().orElseThrow();
        assertEquals("operator", edit.getString("actor"));
        assertEquals("removed the failure switch from the input", edit.getString("note"));
        JsonObject detail = edit.getJsonObject("detail");
        assertTrue(detail.getJsonObject("payloadBefore").containsKey("failures"), "the old payload is kept: " + detail);
        assertEquals(fixed, detail.getJsonObject("payloadAfter"), "and the new one");
        assertTrue(broker.messagesOfRun("DLQ." + PARSE, id).isEmpty(), "the stopped dispatch's message left the DLQ");
    }

    @Test
    void anOperatorCompletesAStoppedStepWithTheirOutputAndTheRunGoesOn() {
        String id = operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"always\"}}}");
        long deadLetterId = awaitRun(id, "DEAD_LETTERED").getJsonObject("deadLetter").getInt("id");
        Await.until("the message in DLQ." + PARSE, Duration.ofSeconds(10), () -> broker.messagesOfRun("DLQ." + PARSE, id), m -> m.size() == 1);

        assertEquals(400, operator.post("api/dead-letters/" + deadLetterId + "/complete-step", "{\"output\":\"text\",\"note\":\"n\"}").status());
        assertEquals(409, operator.post("api/dead-letters/" + deadLetterId + "/skip-step", "{\"note\":\"skip it\"}").status(),
                "parse is not skippable");
        Response completed = operator.post("api/dead-letters/" + deadLetterId + "/complete-step",
                "{\"output\":{\"url\":\"u\",\"text\":\"typed in by hand\",\"words\":3},\"note\":\"parsed it myself\"}");
        assertEquals(200, completed.status(), completed.body());
        assertEquals(409, operator.post("api/dead-letters/" + deadLetterId + "/complete-step",
                "{\"output\":{},\"note\":\"again\"}").status(), "only once: the dead letter is closed");

        JsonObject run = awaitRun(id, "COMPLETED");
        assertEquals(1, run.getInt("requeueCount"));
        JsonObject history = viewer.get("api/runs/" + id + "/history").ok().json();
        List<JsonObject> dispatches = history.getJsonArray("dispatches").getValuesAs(JsonObject.class);
        assertEquals(List.of("fetch", "parse", "index"), dispatches.stream().map(d -> d.getString("step")).toList());
        assertEquals("FAILED", dispatches.get(1).getString("state"), "parse itself never succeeded");
        assertEquals("requeued by operator (STEP_COMPLETED_BY_HAND)", dispatches.get(2).getString("origin"));
        assertEquals("COMPLETED", dispatches.get(2).getString("state"), "index ran on the operator's output");
        assertTrue(broker.messagesOfRun("DLQ." + PARSE, id).isEmpty(), "the parked message is no longer needed");
    }

    @Test
    void anOperatorSkipsASkippableStepAndTheRunCompletesWithoutIt() {
        String id = operator.startRun("{\"failures\":{\"index\":{\"mode\":\"always\"}}}");
        long deadLetterId = awaitRun(id, "DEAD_LETTERED").getJsonObject("deadLetter").getInt("id");
        assertEquals(400, operator.post("api/dead-letters/" + deadLetterId + "/skip-step", "{}").status(), "a skip needs a note");
        Response skipped = operator.post("api/dead-letters/" + deadLetterId + "/skip-step", "{\"note\":\"the index is rebuilt tonight\"}");
        assertEquals(200, skipped.status(), skipped.body());
        JsonObject run = awaitRun(id, "COMPLETED");
        assertEquals("STEP_SKIPPED", viewer.get("api/dead-letters/" + deadLetterId).ok().json().getString("requeueMethod"));
        assertEquals(1, run.getInt("requeueCount"));
    }

    @Test
    void twoOperatorsRequeueingTheSameDeadLetterAtOnceSendExactlyOneMessageBack() throws Exception {
        String id = operator.startRun("{\"failures\":{\"index\":{\"mode\":\"until-requeued\"}}}");
        long deadLetterId = awaitRun(id, "DEAD_LETTERED").getJsonObject("deadLetter").getInt("id");
        Await.until("the message in DLQ." + INDEX, Duration.ofSeconds(10), () -> broker.messagesOfRun("DLQ." + INDEX, id), m -> m.size() == 1);

        ExecutorService operators = Executors.newFixedThreadPool(2);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<Integer>> clicks = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                clicks.add(operators.submit(() -> {
                    go.await();
                    return operator.post("api/dead-letters/" + deadLetterId + "/requeue", "").status();
                }));
            }
            go.countDown();
            List<Integer> statuses = new ArrayList<>();
            for (Future<Integer> click : clicks) {
                statuses.add(click.get(60, TimeUnit.SECONDS));
            }
            statuses.sort(null);
            assertEquals(List.of(200, 409), statuses, "one requeue wins, the other is told it was already done");
        } finally {
            operators.shutdownNow();
        }

        JsonObject run = awaitRun(id, "COMPLETED");
        assertEquals(1, run.getInt("requeueCount"));
        List<JsonObject> index = executions(run, "index");
        assertEquals(2, index.size(), "the failed dispatch and exactly one requeued dispatch");
        assertEquals(1, index.get(1).getInt("attempts"), "the requeued message was delivered once");
    }

    @Test
    void requeueAfterTheDlqMessageWasPurgedDispatchesTheStepFromTheDatabase() {
        String id = operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"until-requeued\"}}}");
        long deadLetterId = awaitRun(id, "DEAD_LETTERED").getJsonObject("deadLetter").getInt("id");
        Await.until("the message in DLQ." + PARSE, Duration.ofSeconds(10), () -> broker.messagesOfRun("DLQ." + PARSE, id), m -> m.size() == 1);
        assertEquals(1, broker.purge("DLQ." + PARSE, "lazarusRunId = '" + id + "'"));

        JsonObject requeued = operator.post("api/dead-letters/" + deadLetterId + "/requeue", "").ok().json();
        assertEquals("REDISPATCHED", requeued.getString("requeueMethod"));
        awaitRun(id, "COMPLETED");
    }

    @Test
    void retryInTheArtemisConsoleResumesTheRunAndMarksTheDeadLetterReplayedFromTheConsole() {
        String id = operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"until-requeued\"}}}");
        long deadLetterId = awaitRun(id, "DEAD_LETTERED").getJsonObject("deadLetter").getInt("id");
        Await.until("the message in DLQ." + PARSE, Duration.ofSeconds(10), () -> broker.messagesOfRun("DLQ." + PARSE, id), m -> m.size() == 1);

        assertTrue(broker.retryAsTheConsoleDoes("DLQ." + PARSE, id));

        JsonObject run = awaitRun(id, "COMPLETED");
        assertEquals(1, run.getInt("requeueCount"));
        JsonObject deadLetter = viewer.get("api/dead-letters/" + deadLetterId).ok().json();
        assertEquals("REQUEUED", deadLetter.getString("status"));
        assertEquals("REPLAYED_FROM_CONSOLE", deadLetter.getString("requeueMethod"));
        assertEquals("artemis-console", deadLetter.getString("requeuedBy"));
        List<JsonObject> parse = executions(run, "parse");
        assertEquals("COMPLETED", parse.get(parse.size() - 1).getString("state"));
        assertEquals(1, parse.get(parse.size() - 1).getInt("attempts"), "the replay starts its attempts afresh");
        assertTrue(broker.messagesOfRun("DLQ." + PARSE, id).isEmpty());
    }

    @Test
    void aRunThatKeepsFailingIsParkedWithRequeueLimitInsteadOfLooping() {
        // the test server allows 2 requeues per run (arquillian.xml)
        String id = operator.startRun("{\"failures\":{\"index\":{\"mode\":\"always\"}}}");
        JsonObject parked = requeueUntilTheLoopGuardParks(id, d -> assertEquals("RETRIES_EXHAUSTED", d.getString("reason")));
        assertEquals("REQUEUE_LIMIT", parked.getString("reason"));
        assertTrue(parked.getString("errorMessage").startsWith("RETRIES_EXHAUSTED after 2 requeues"), parked.getString("errorMessage"));

        Response refused = operator.post("api/dead-letters/" + parked.getInt("id") + "/requeue", "");
        assertEquals(409, refused.status());
        assertTrue(refused.json().getString("detail").contains("lazarus.requeue.max-per-run"), refused.body());
        assertEquals(3, viewer.get("api/dead-letters?runId=" + id).ok().json().getInt("total"), "every failure kept its evidence");
    }

    @Test
    void requeueFromTheAdminPageResumesTheRun() {
        String id = operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"until-requeued\"}}}");
        awaitRun(id, "DEAD_LETTERED");

        AdminPage viewerPage = new AdminPage(base);
        viewerPage.signIn("viewer", "viewer-pw");
        String viewerRow = viewerPage.rowOf(id);
        assertNotNull(viewerRow, "a viewer sees the dead letter");
        assertTrue(viewerRow.contains("DEAD LETTER") && viewerRow.contains("Retries exhausted") && viewerRow.contains("parse"), viewerRow);
        assertFalse(viewerRow.contains(":requeue"), "a viewer is offered no Requeue button");

        AdminPage page = new AdminPage(base);
        page.signIn("operator", "operator-pw");
        String answer = page.requeue(id);
        assertTrue(answer.contains("requeued at step parse"), answer);

        JsonObject run = awaitRun(id, "COMPLETED");
        assertEquals("REQUEUED", run.getJsonObject("deadLetter").getString("status"));
        assertEquals("operator", run.getJsonObject("deadLetter").getString("requeuedBy"));
    }
}
