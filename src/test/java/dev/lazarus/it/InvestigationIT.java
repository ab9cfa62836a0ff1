package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.it.Api.Response;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The investigation workflow and the read models operators triage with, over the REST API. */
class InvestigationIT extends LazarusIT {

    private long deadLetterOfAPoisonRun() {
        String id = operator.startRun("{\"failures\":{\"index\":{\"mode\":\"permanent\"}}}");
        return awaitRun(id, "DEAD_LETTERED").getJsonObject("deadLetter").getInt("id");
    }

    @Test
    void deadLetterMovesThroughTheWorkflowAndEveryActionIsAuditedWithTheAuthenticatedActor() {
        long id = deadLetterOfAPoisonRun();

        Response impostor = operator.post("api/dead-letters/" + id + "/investigate", "{\"note\":\"looking\",\"actor\":\"mallory\"}");
        assertEquals(400, impostor.status(), "who acts is not the body's to say: " + impostor.body());
        assertTrue(impostor.json().getString("detail").contains("actor"), impostor.body());
        JsonObject taken = operator.post("api/dead-letters/" + id + "/investigate", "{\"note\":\"looking\"}").ok().json();
        assertEquals("INVESTIGATING", taken.getString("status"));
        operator.post("api/dead-letters/" + id + "/notes", "{\"note\":\"the document is a scanned image\"}").ok();
        JsonObject resolved = operator.post("api/dead-letters/" + id + "/resolve", "{\"note\":\"asked the sender for a PDF\"}").ok().json();

        assertEquals("RESOLVED_MANUALLY", resolved.getString("status"));
        assertEquals("operator", resolved.getString("closedBy"));
        List<JsonObject> history = resolved.getJsonArray("history").stream().map(JsonValue::asJsonObject).toList();
        assertEquals(List.of("CREATED", "INVESTIGATION_STARTED", "NOTE", "RESOLVED"),
                history.stream().map(e -> e.getString("action")).toList());
        assertEquals("consumer", history.get(0).getString("actor"), "the detector created it");
        history.subList(1, 4).forEach(e -> assertEquals("operator", e.getString("actor"), "the authenticated caller"));
        assertEquals("the document is a scanned image", history.get(2).getString("note"));

        Response again = operator.post("api/dead-letters/" + id + "/discard", "{\"note\":\"no\"}");
        assertEquals(409, again.status());
        assertEquals("application/problem+json", again.contentType());
    }

    @Test
    void discardNeedsANoteAndKeepsTheEvidence() {
        long id = deadLetterOfAPoisonRun();
        JsonObject before = viewer.get("api/dead-letters/" + id).ok().json();
        Await.until("the message parked in DLQ." + INDEX, java.time.Duration.ofSeconds(15),
                () -> broker.messagesOfRun("DLQ." + INDEX, before.getString("runId")).size(), n -> n == 1);

        Response noNote = operator.post("api/dead-letters/" + id + "/discard", "{}");
        assertEquals(400, noNote.status());
        assertTrue(noNote.json().getString("detail").contains("note"));
        assertEquals(400, operator.post("api/dead-letters/" + id + "/discard", "{\"note\": 42}").status());
        assertEquals(400, operator.post("api/dead-letters/" + id + "/discard", "not json").status());

        JsonObject discarded = operator.post("api/dead-letters/" + id + "/discard", "{\"note\":\"test document\"}").ok().json();
        assertEquals("DISCARDED", discarded.getString("status"));
        assertEquals(before.getString("stackTrace"), discarded.getString("stackTrace"));
        assertEquals(1, broker.messagesOfRun("DLQ." + INDEX, before.getString("runId")).size(), "the DLQ message stays");
    }

    @Test
    void onlyOperatorsActAndEveryActionOfAViewerIsForbidden() {
        long id = deadLetterOfAPoisonRun();
        for (String action : List.of("investigate", "notes", "resolve", "discard", "requeue")) {
            assertEquals(403, viewer.post("api/dead-letters/" + id + "/" + action, "{\"note\":\"x\"}").status(), action);
        }
        assertEquals("PENDING", viewer.get("api/dead-letters/" + id).ok().json().getString("status"));
    }

    @Test
    void statsAddUpAndShowTheOldestOpenAndTheTimeToResolution() {
        long id = deadLetterOfAPoisonRun();
        operator.post("api/dead-letters/" + id + "/resolve", "{\"note\":\"done\"}").ok();

        JsonObject stats = viewer.get("api/dead-letters/stats").ok().json();
        long total = stats.getJsonNumber("total").longValue();
        long byStatus = stats.getJsonObject("byStatus").values().stream().mapToLong(v -> ((jakarta.json.JsonNumber) v).longValue()).sum();
        long byReason = stats.getJsonArray("byReason").stream().mapToLong(r -> r.asJsonObject().getJsonNumber("total").longValue()).sum();
        assertEquals(total, byStatus);
        assertEquals(total, byReason);
        assertTrue(stats.getJsonObject("byStatus").getInt("RESOLVED_MANUALLY") >= 1);
        assertNotNull(stats.getString("averageTimeToResolution"));
        assertFalse(Instant.parse(stats.getString("newest")).isBefore(Instant.parse(stats.getString("oldestOpen", stats.getString("newest")))));
    }

    @Test
    void investigationQueueListsOpenDeadLettersByTriageScoreThenAgeEachWithItsParts() {
        deadLetterOfAPoisonRun();
        awaitRun(operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"always\"}}}"), "DEAD_LETTERED");

        List<JsonObject> queue = viewer.get("api/dead-letters/investigation-queue?limit=500").ok().json()
                .getJsonArray("items").stream().map(JsonValue::asJsonObject).toList();
        assertTrue(queue.size() >= 2);
        for (int i = 0; i < queue.size(); i++) {
            JsonObject entry = queue.get(i);
            assertTrue(List.of("PENDING", "INVESTIGATING").contains(entry.getString("status")));
            assertEquals(entry.getInt("score"), entry.getJsonArray("scoreParts").stream()
                    .mapToInt(p -> p.asJsonObject().getInt("value")).sum(), "its parts add up to its score: " + entry);
            entry.getJsonArray("scoreParts").forEach(p -> assertFalse(p.asJsonObject().getString("why").isBlank()));
            if (i > 0) {
                JsonObject before = queue.get(i - 1);
                assertTrue(before.getInt("score") > entry.getInt("score")
                        || before.getInt("score") == entry.getInt("score")
                        && !Instant.parse(before.getString("createdAt")).isAfter(Instant.parse(entry.getString("createdAt"))),
                        "out of order: " + before + " then " + entry);
            }
        }
        assertFalse(viewer.get("api/dead-letters?limit=1").ok().json().getJsonArray("items").getJsonObject(0).containsKey("score"),
                "only the queue scores");
    }

    @Test
    void runsCanBeFilteredByStateAndDeadLetteredFlag() {
        deadLetterOfAPoisonRun();
        JsonObject dead = viewer.get("api/runs?deadLettered=true&limit=500").ok().json();
        assertTrue(dead.getJsonNumber("total").longValue() >= 1);
        dead.getJsonArray("items").forEach(r -> assertEquals("DEAD_LETTERED", r.asJsonObject().getString("state")));
        viewer.get("api/runs?state=completed").ok().json().getJsonArray("items")
                .forEach(r -> assertEquals("COMPLETED", r.asJsonObject().getString("state")));
        assertEquals(400, viewer.get("api/runs?state=SLEEPING").status());
        assertEquals(400, viewer.get("api/runs?state=COMPLETED&deadLettered=true").status());
    }

    @Test
    void stalenessEndpointClassifiesLiveRunsAndOperatorsCanSweepOnDemand() {
        JsonObject view = viewer.get("api/staleness").ok().json();
        assertTrue(view.getJsonObject("counts").containsKey("WARNING"));
        assertEquals(400, viewer.get("api/staleness?health=purple").status());
        assertEquals(403, viewer.post("api/staleness/sweep", "").status());
        // one sweep at a time per node: while the timer's runs (every 2 s here) the answer is a 409, and asking again works
        Response swept = Await.until("a sweep of its own", Duration.ofSeconds(30), () -> operator.post("api/staleness/sweep", ""),
                r -> r.status() != 409 || !r.json().getString("detail").contains("already running"));
        JsonObject report = swept.ok().json();
        assertTrue(report.containsKey("deadLettered"));
    }
}
