package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.it.Api.Response;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.ObjectMessage;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A message dropped into a step queue by hand, or a late copy of an old dispatch, is dead-lettered on its own:
 * it never stops, resumes or re-routes the run it names, and only a real Retry from the Artemis console (a
 * message Lazarus parked, carrying its token) resumes a dead-lettered run, within the loop guard.
 */
class StrayMessagesIT extends LazarusIT {

    private static String stepMessage(String runId, String step, long generation) {
        return "{\"runId\":\"" + runId + "\",\"step\":\"" + step + "\",\"generation\":" + generation + "}";
    }

    private List<JsonObject> deadLettersOf(String runId) {
        return viewer.get("api/dead-letters?runId=" + runId).ok().json().getJsonArray("items").stream()
                .map(JsonValue::asJsonObject).toList();
    }

    @Test
    void aMessageNamingABusyRunButAnotherStepIsDeadLetteredOnItsOwnAndTheRunCompletes() {
        String id = operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"hang\",\"seconds\":3}}}");
        Await.until("run " + id + " busy in parse", Duration.ofSeconds(30), () -> viewer.run(id),
                r -> "IN_PROGRESS".equals(r.getString("state")) && "parse".equals(r.getString("currentStep")));

        broker.send(PARSE, stepMessage(id, "fetch", 1));

        JsonObject stray = Await.until("the stray message's dead letter", Duration.ofSeconds(30), () -> deadLettersOf(id),
                d -> !d.isEmpty()).get(0);
        assertEquals("UNKNOWN_STEP", stray.getString("reason"));
        JsonObject run = awaitRun(id, "COMPLETED");
        assertEquals(0, run.getInt("requeueCount"));
        assertEquals(1, deadLettersOf(id).size(), "the run itself never stopped");
        assertEquals(1, broker.messagesOfRun("DLQ." + PARSE, id).size(), "the stray message is kept in the DLQ");

        Response requeue = operator.post("api/dead-letters/" + stray.getInt("id") + "/requeue", "");
        assertEquals(409, requeue.status(), requeue.body());
        assertTrue(requeue.json().getString("detail").contains("message on its own"), requeue.body());
    }

    @Test
    void aCopyOfAnOldDispatchIsDeadLetteredOnItsOwnAndNeverRunsAgain() {
        String id = operator.startRun("{}");
        JsonObject completed = awaitRun(id, "COMPLETED");

        // the first dispatch of index once more, as a late copy would bring it
        broker.send(INDEX, stepMessage(id, "index", 1));

        JsonObject stale = Await.until("the stale copy's dead letter", Duration.ofSeconds(30), () -> deadLettersOf(id),
                d -> !d.isEmpty()).get(0);
        assertEquals("STALE_MESSAGE", stale.getString("reason"));
        JsonObject run = viewer.run(id);
        assertEquals("COMPLETED", run.getString("state"));
        assertEquals(1, executions(run, "index").get(0).getInt("attempts"), "the step did not run again");
        assertEquals(completed.getJsonObject("payload"), run.getJsonObject("payload"));
    }

    @Test
    void aStrayCopyOfADeadLetteredDispatchDoesNotResumeTheRun() {
        String id = operator.startRun("{\"failures\":{\"index\":{\"mode\":\"permanent\"}}}");
        JsonObject deadLetter = awaitRun(id, "DEAD_LETTERED").getJsonObject("deadLetter");
        Await.until("the message in DLQ." + INDEX, Duration.ofSeconds(15), () -> broker.messagesOfRun("DLQ." + INDEX, id), m -> m.size() == 1);

        // first delivery, same run, step and generation: what a heuristic would take for a console Retry
        broker.send(INDEX, stepMessage(id, "index", deadLetter.getInt("generation")));

        JsonObject held = Await.until("the copy noted on the run's dead letter", Duration.ofSeconds(30),
                () -> viewer.get("api/dead-letters/" + deadLetter.getInt("id")).ok().json(),
                d -> d.getJsonArray("history").stream().anyMatch(e -> e.asJsonObject().getString("note", "").contains("a copy")));
        assertEquals("PENDING", held.getString("status"), "its dead letter is still open");
        assertFalse(held.containsKey("requeuedBy") && !held.isNull("requeuedBy"), "nobody requeued it: " + held);
        JsonObject run = viewer.run(id);
        assertEquals("DEAD_LETTERED", run.getString("state"));
        assertEquals(0, run.getInt("requeueCount"), "nothing resumed the run");
        assertEquals(1, deadLettersOf(id).size(), "the copy is evidence of the same dispatch, not a new dead letter");
        assertEquals(1, broker.messagesOfRun("DLQ." + INDEX, id).size(), "the parked message is still the one in the DLQ");
    }

    /**
     * A run is DEAD_LETTERED while its latest run-stopping dead letter holds it, open or closed by resolve or discard;
     * a dead letter about a stray message recorded later never takes its place as the run's dead letter.
     */
    @Test
    void aRunsDeadLetterIsTheOneThatHoldsItNotALaterStrayOneAndStaysSoAfterItIsResolved() {
        String id = operator.startRun("{\"failures\":{\"index\":{\"mode\":\"permanent\"}}}");
        JsonObject holding = awaitRun(id, "DEAD_LETTERED").getJsonObject("deadLetter");
        assertEquals("NON_RETRYABLE", holding.getString("reason"));
        int holdingId = holding.getInt("id");

        // a late copy of its first dispatch: a dead letter of its own, recorded after the one that holds the run
        broker.send(FETCH, stepMessage(id, "fetch", 1));
        Await.until("the stray copy's dead letter", Duration.ofSeconds(30), () -> deadLettersOf(id), d -> d.size() == 2);
        JsonObject run = viewer.run(id);
        assertEquals("DEAD_LETTERED", run.getString("state"));
        assertEquals(holdingId, run.getJsonObject("deadLetter").getInt("id"),
                "the run's dead letter is the one that holds it, not the stray message's: " + run.getJsonObject("deadLetter"));

        operator.post("api/dead-letters/" + holdingId + "/resolve", "{\"note\":\"fixed at the source\"}").ok();
        broker.send(FETCH, stepMessage(id, "fetch", 1));
        Await.until("the second stray copy's dead letter", Duration.ofSeconds(30), () -> deadLettersOf(id), d -> d.size() == 3);
        run = viewer.run(id);
        assertEquals("DEAD_LETTERED", run.getString("state"), "resolving leaves the run where it stopped");
        assertEquals(holdingId, run.getJsonObject("deadLetter").getInt("id"), "the resolved dead letter still holds the run");
        assertEquals("RESOLVED_MANUALLY", run.getJsonObject("deadLetter").getString("status"));
        AdminPage admin = new AdminPage(base);
        admin.signIn("viewer", "viewer-pw");
        String page = admin.open("admin/run.xhtml?id=" + id).body();
        assertTrue(page.contains("id=\"held-by\" href=\"dead-letter.xhtml?id=" + holdingId + "\""),
                "the run page names the dead letter that holds the run");
    }

    @Test
    void aConsoleRetryOfARunAtTheRequeueLimitIsRefusedAndTheMessageIsParkedAgain() {
        // the test server allows 2 requeues per run (arquillian.xml): the third failure is parked by the loop guard
        String id = operator.startRun("{\"failures\":{\"index\":{\"mode\":\"permanent\"}}}");
        JsonObject parked = requeueUntilTheLoopGuardParks(id, d -> { });
        assertEquals("REQUEUE_LIMIT", parked.getString("reason"));
        Await.until("the message in DLQ." + INDEX, Duration.ofSeconds(15), () -> broker.messagesOfRun("DLQ." + INDEX, id), m -> m.size() == 1);

        assertTrue(broker.retryAsTheConsoleDoes("DLQ." + INDEX, id));

        JsonObject noted = Await.until("the refusal noted on the dead letter", Duration.ofSeconds(30),
                () -> viewer.get("api/dead-letters/" + parked.getInt("id")).ok().json(),
                d -> d.getJsonArray("history").stream().anyMatch(e -> e.asJsonObject().getString("note", "").contains("refused")));
        assertEquals("PENDING", noted.getString("status"));
        Await.until("the message back in DLQ." + INDEX, Duration.ofSeconds(15), () -> broker.messagesOfRun("DLQ." + INDEX, id),
                m -> m.size() == 1);
        JsonObject run = viewer.run(id);
        assertEquals("DEAD_LETTERED", run.getString("state"));
        assertEquals(2, run.getInt("requeueCount"), "the console is held to the same loop guard");
        assertFalse(broker.messagesOfRun(INDEX, id).size() > 0, "nothing left on the step queue");
    }

    @Test
    void aMessageForADispatchTheRunNeverMadeIsBroughtBackAFewTimesThenDeadLetteredOnItsOwn() {
        String id = operator.startRun("{}");
        awaitRun(id, "COMPLETED");

        broker.send(FETCH, stepMessage(id, "fetch", 99));

        JsonObject stale = Await.until("the message's own dead letter", Duration.ofSeconds(60), () -> deadLettersOf(id),
                d -> !d.isEmpty()).get(0);
        assertEquals("STALE_MESSAGE", stale.getString("reason"));
        assertTrue(stale.getInt("attempts") >= 5, "the database was given a few deliveries to show the dispatch: " + stale);
        assertEquals("COMPLETED", viewer.run(id).getString("state"));
    }

    @Test
    void aMapOrObjectMessageIsParkedWithItsBodyUntouchedAndNeverDeserialized() throws Exception {
        String mapId = broker.send(FETCH, session -> {
            MapMessage map = session.createMapMessage();
            map.setString("runId", "not a step message");
            map.setLong("generation", 7);
            return map;
        });
        String objectId = broker.send(FETCH, session -> session.createObjectMessage(new ArrayList<>(List.of("kept", "as", "sent"))));

        for (String messageId : List.of(mapId, objectId)) {
            JsonObject deadLetter = Await.until("the dead letter of " + messageId, Duration.ofSeconds(60),
                    () -> viewer.get("api/dead-letters?reason=MALFORMED_MESSAGE&limit=100").ok().json().getJsonArray("items").stream()
                            .map(JsonValue::asJsonObject).filter(d -> messageId.equals(d.getString("messageId", null))).toList(),
                    found -> !found.isEmpty()).get(0);
            List<Message> parked = broker.browse("DLQ." + FETCH, "lazarusDeadLetterId = " + deadLetter.getJsonNumber("id").longValue());
            assertEquals(1, parked.size(), "parked once: " + deadLetter);
            if (messageId.equals(mapId)) {
                MapMessage map = assertInstanceOf(MapMessage.class, parked.get(0));
                assertEquals("not a step message", map.getString("runId"));
                assertEquals(7, map.getLong("generation"));
            } else {
                ObjectMessage object = assertInstanceOf(ObjectMessage.class, parked.get(0));
                assertEquals(List.of("kept", "as", "sent"), object.getObject());
            }
        }
    }

    @Test
    void aMessageThatForgesHowLongItWaitedIsStillDeadLetteredAndNeverLoops() {
        String ghost = UUID.randomUUID().toString();
        broker.send(FETCH, session -> {
            Message forged = session.createTextMessage(stepMessage(ghost, "fetch", 1));
            forged.setLongProperty("lazarusNotVisibleSince", Long.MIN_VALUE); // would overflow "now - since"
            forged.setLongProperty("lazarusNotVisibleChecks", -10);
            return forged;
        });
        JsonObject deadLetter = Await.until("the forged message's dead letter", Duration.ofSeconds(90), () -> deadLettersOf(ghost),
                d -> !d.isEmpty()).get(0);
        assertEquals("RUN_NOT_FOUND", deadLetter.getString("reason"));
        assertTrue(deadLetter.getString("errorMessage").contains("not shown after"), deadLetter.getString("errorMessage"));
        // dead-lettering acknowledges the message without sending it back: once it has its dead letter it has stopped
    }
}
