package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.JsonObject;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Recreate: a new run of the same pipeline from a dead letter or an ended run, with the same or an edited payload,
 * linked both ways and audited; a refused request stores nothing.
 */
class RecreateIT extends LazarusIT {

    @Test
    void aDeadLetterRecreatedWithItsPayloadStartsALinkedRunAndIsResolvedInItsAuditTrail() {
        String old = operator.startRun("{\"url\":\"https://example.org/recreate.html\",\"failures\":{\"parse\":{\"mode\":\"permanent\"}}}");
        long deadLetterId = awaitRun(old, "DEAD_LETTERED").getJsonObject("deadLetter").getInt("id");

        Api.Response created = operator.post("api/dead-letters/" + deadLetterId + "/recreate", "");
        assertEquals(201, created.status(), created.body());
        String recreated = created.json().getString("id");
        assertNotEquals(old, recreated);
        assertTrue(created.location().endsWith("/api/runs/" + recreated), created.location());
        assertEquals(old, created.json().getString("recreatedFrom"));
        assertEquals(deadLetterId, created.json().getInt("deadLetterId"));
        assertFalse(created.json().getBoolean("payloadEdited"));
        assertTrue(created.json().getBoolean("deadLetterResolved"));

        // the same payload: the same permanent failure, in a run of its own
        JsonObject newRun = awaitRun(recreated, "DEAD_LETTERED");
        assertEquals("https://example.org/recreate.html", newRun.getJsonObject("payload").getString("url"));
        JsonObject from = viewer.get("api/runs/" + recreated + "/history").ok().json().getJsonObject("recreatedFrom");
        assertEquals(old, from.getString("run"));
        assertEquals(deadLetterId, from.getInt("deadLetterId"));
        assertEquals("operator", from.getString("by"));
        List<JsonObject> as = viewer.get("api/runs/" + old + "/history").ok().json().getJsonArray("recreatedAs")
                .getValuesAs(JsonObject.class);
        assertEquals(List.of(recreated), as.stream().map(l -> l.getString("run")).toList());

        JsonObject deadLetter = viewer.get("api/dead-letters/" + deadLetterId).ok().json();
        assertEquals("RESOLVED_MANUALLY", deadLetter.getString("status"));
        List<JsonObject> trail = deadLetter.getJsonArray("history").getValuesAs(JsonObject.class);
        JsonObject recreatedEvent = trail.stream().filter(e -> "RECREATED".equals(e.getString("action"))).findFirst().orElseThrow();
        assertEquals("operator", recreatedEvent.getString("actor"));
        assertEquals("recreated as run " + recreated, recreatedEvent.getString("note"));
        assertTrue(trail.stream().anyMatch(e -> "RESOLVED".equals(e.getString("action"))
                && ("recreated as run " + recreated).equals(e.getString("note"))), trail.toString());

        // closed, it can still be recreated; then it is only noted
        Api.Response again = operator.post("api/dead-letters/" + deadLetterId + "/recreate", "{\"payload\":{\"url\":\"https://example.org/fixed.html\"}}");
        assertEquals(201, again.status(), again.body());
        assertFalse(again.json().getBoolean("deadLetterResolved"));
        assertTrue(again.json().getBoolean("payloadEdited"));
        awaitRun(again.json().getString("id"), "COMPLETED");
    }

    @Test
    void anEndedRunIsRecreatedWithAnEditedPayloadAndALiveOneIsA409() {
        String completed = operator.startRun("{\"url\":\"https://example.org/first.html\"}");
        awaitRun(completed, "COMPLETED");
        Api.Response created = operator.post("api/runs/" + completed + "/recreate", "{\"payload\":{\"url\":\"https://example.org/second.html\"}}");
        assertEquals(201, created.status(), created.body());
        assertTrue(created.json().getBoolean("payloadEdited"));
        assertTrue(created.json().isNull("deadLetterId"));
        JsonObject second = awaitRun(created.json().getString("id"), "COMPLETED");
        assertEquals("https://example.org/second.html", second.getJsonObject("payload").getString("title"), "the edited payload ran");

        // an open dead letter of a run recreated from the run is resolved too, unless "resolve": false
        String stopped = operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"permanent\"}}}");
        long deadLetterId = awaitRun(stopped, "DEAD_LETTERED").getJsonObject("deadLetter").getInt("id");
        Api.Response kept = operator.post("api/runs/" + stopped + "/recreate", "{\"resolve\":false}");
        assertEquals(201, kept.status(), kept.body());
        assertEquals(deadLetterId, kept.json().getInt("deadLetterId"));
        assertFalse(kept.json().getBoolean("deadLetterResolved"));
        assertEquals("PENDING", viewer.get("api/dead-letters/" + deadLetterId).ok().json().getString("status"), "left open");

        String live = operator.startRun("{\"failures\":{\"fetch\":{\"mode\":\"hang\",\"seconds\":30}}}");
        awaitRun(live, "IN_PROGRESS");
        Api.Response refused = operator.post("api/runs/" + live + "/recreate", "");
        assertEquals(409, refused.status(), refused.body());
        assertTrue(refused.body().contains("still live"), refused.body());
        operator.post("api/runs/" + live + "/stop", "{\"note\":\"test over\"}"); // unless the sweeper found it stuck first

        assertEquals(404, operator.post("api/runs/" + UUID.randomUUID() + "/recreate", "").status());
        assertEquals(404, operator.post("api/dead-letters/999999999/recreate", "").status());
    }

    @Test
    void onlyAnOperatorRecreatesAndAHostileBodyIsRefusedWithNothingCreated() {
        String old = operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"permanent\"}}}");
        long deadLetterId = awaitRun(old, "DEAD_LETTERED").getJsonObject("deadLetter").getInt("id");
        long runsBefore = runCount();
        int trailBefore = trail(deadLetterId);

        assertEquals(403, viewer.post("api/dead-letters/" + deadLetterId + "/recreate", "").status());
        assertEquals(401, anonymous.post("api/dead-letters/" + deadLetterId + "/recreate", "").status());
        assertEquals(403, viewer.post("api/runs/" + old + "/recreate", "").status());

        String deep = "{\"payload\":" + "{\"a\":".repeat(300) + "1" + "}".repeat(300) + "}";
        String huge = "{\"payload\":{\"text\":\"" + "x".repeat(300_000) + "\"}}";
        for (String body : List.of("[1]", "{\"payload\":\"text\"}", "{\"payload\":[1,2]}", "{\"resolve\":\"yes\"}",
                "{\"other\":1}", "{\"payload\":", deep, huge)) {
            for (String path : List.of("api/dead-letters/" + deadLetterId + "/recreate", "api/runs/" + old + "/recreate")) {
                Api.Response refused = operator.post(path, body);
                assertTrue(refused.status() == 400 || refused.status() == 413, path + " " + body.substring(0, Math.min(40, body.length()))
                        + " -> " + refused.status() + " " + refused.body());
                assertEquals("application/problem+json", refused.contentType());
            }
        }
        assertEquals(runsBefore, runCount(), "no run was created");
        assertEquals(trailBefore, trail(deadLetterId), "nothing was recorded on the dead letter");
        assertEquals("PENDING", viewer.get("api/dead-letters/" + deadLetterId).ok().json().getString("status"));
    }

    @Test
    void aRecreateRetriedWithItsIdempotencyKeyStartsOneRun() {
        String old = operator.startRun("{\"url\":\"https://example.org/twice.html\",\"failures\":{\"parse\":{\"mode\":\"permanent\"}}}");
        long deadLetterId = awaitRun(old, "DEAD_LETTERED").getJsonObject("deadLetter").getInt("id");
        long runsBefore = runCount();
        String key = "recreate-" + UUID.randomUUID();

        Api.Response first = operator.post("api/dead-letters/" + deadLetterId + "/recreate", "{}", "Idempotency-Key", key);
        assertEquals(201, first.status(), first.body());
        // the client got no answer, or the button was pressed twice: the same request again
        Api.Response retried = operator.post("api/dead-letters/" + deadLetterId + "/recreate", "{}", "Idempotency-Key", key);
        assertEquals(200, retried.status(), retried.body());
        assertEquals(first.json().getString("id"), retried.json().getString("id"), "the run the first request started");
        assertTrue(retried.json().getBoolean("deadLetterResolved"), "as the first request answered: " + retried.body());
        assertEquals(runsBefore + 1, runCount(), "one new run");
        assertEquals(1, viewer.get("api/runs/" + old + "/history").ok().json().getJsonArray("recreatedAs").size());

        // the key names that request: another one under it is refused, and starts nothing
        Api.Response other = operator.post("api/dead-letters/" + deadLetterId + "/recreate", "{\"resolve\":false}", "Idempotency-Key", key);
        assertEquals(422, other.status(), other.body());
        Api.Response elsewhere = operator.post("api/runs/" + old + "/recreate", "{}", "Idempotency-Key", key);
        assertEquals(422, elsewhere.status(), elsewhere.body());
        assertEquals(400, operator.post("api/runs/" + old + "/recreate", "{}", "Idempotency-Key", "with space").status());

        // from the run, the same: one run for two requests with one key
        String runKey = "recreate-" + UUID.randomUUID();
        Api.Response fromRun = operator.post("api/runs/" + old + "/recreate", "{\"payload\":{\"url\":\"https://example.org/x.html\"}}",
                "Idempotency-Key", runKey);
        assertEquals(201, fromRun.status(), fromRun.body());
        Api.Response fromRunAgain = operator.post("api/runs/" + old + "/recreate", "{\"payload\":{\"url\":\"https://example.org/x.html\"}}",
                "Idempotency-Key", runKey);
        assertEquals(200, fromRunAgain.status(), fromRunAgain.body());
        assertEquals(fromRun.json().getString("id"), fromRunAgain.json().getString("id"));
        assertEquals(runsBefore + 2, runCount());
    }

    /**
     * A recreate and a requeue of one dead letter at once: the requeue brings the old run back, or the recreate starts a
     * new one and resolves the dead letter, never both (two runs doing the same work). The recreate checks the old run
     * again, locked, in the transaction that starts the new one.
     */
    @Test
    void aRecreateRacingARequeueOfItsDeadLetterNeverLeavesTwoRunsAtWork() throws Exception {
        for (int round = 0; round < 4; round++) {
            String old = operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"permanent\"}}}");
            long deadLetterId = awaitRun(old, "DEAD_LETTERED").getJsonObject("deadLetter").getInt("id");
            java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
            var pool = java.util.concurrent.Executors.newFixedThreadPool(2);
            try {
                var requeue = pool.submit(() -> {
                    go.await();
                    return operator.post("api/dead-letters/" + deadLetterId + "/requeue", "");
                });
                var recreate = pool.submit(() -> {
                    go.await();
                    return operator.post("api/runs/" + old + "/recreate", "{\"resolve\":true}");
                });
                go.countDown();
                Api.Response requeued = requeue.get(60, java.util.concurrent.TimeUnit.SECONDS);
                Api.Response recreated = recreate.get(60, java.util.concurrent.TimeUnit.SECONDS);
                boolean requeueDone = requeued.status() == 200;
                boolean recreateDone = recreated.status() == 201;
                assertTrue(requeueDone != recreateDone, "exactly one of them acts: requeue " + requeued.status() + " "
                        + requeued.body() + "; recreate " + recreated.status() + " " + recreated.body());
                if (!recreateDone) {
                    assertEquals(409, recreated.status(), recreated.body());
                    assertEquals(0, viewer.get("api/runs/" + old + "/history").ok().json().getJsonArray("recreatedAs").size(),
                            "nothing was started");
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    private int trail(long deadLetterId) {
        return viewer.get("api/dead-letters/" + deadLetterId).ok().json().getJsonArray("history").size();
    }
}
