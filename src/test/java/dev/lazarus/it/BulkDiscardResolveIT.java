package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.it.Api.Response;
import jakarta.json.JsonObject;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Bulk discard and bulk resolve by filter ({@code /api/bulk-jobs}, and the dead-letter list's bulk panel): the same
 * dry run, progress, cancel and audit as a bulk requeue, acting on exactly what was counted, each dead letter closed
 * by the one rule that closes a single one, with the job's requester and note in its trail.
 */
class BulkDiscardResolveIT extends LazarusIT {

    /** A marker of this test's dead letters: their error text, and so the filter that selects them and nothing else. */
    private static String marker() {
        return "bulk-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Starts {@code count} runs whose parse step fails on every attempt with {@code marker} in the error; returns their dead letters' ids. */
    private List<Long> deadLetters(int count, String marker) {
        List<String> runs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            runs.add(startFailing(marker));
        }
        return runs.stream().map(id -> (long) awaitRun(id, "DEAD_LETTERED").getJsonObject("deadLetter").getInt("id")).toList();
    }

    private String startFailing(String marker) {
        return operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"always\",\"message\":\"" + marker + " broken document\"}}}");
    }

    private JsonObject deadLetter(long id) {
        return viewer.get("api/dead-letters/" + id).ok().json();
    }

    private int matching(String action, String query) {
        return viewer.get("api/bulk-jobs/dry-run?action=" + action + "&" + query).ok().json().getInt("matching");
    }

    private JsonObject awaitJob(String location, String state) {
        String path = location.substring(location.indexOf("api/"));
        return Await.until("job " + path + " to be " + state, Duration.ofSeconds(90), () -> viewer.get(path).ok().json(),
                job -> state.equals(job.getString("state")));
    }

    /** The audit entry that closed it (a note the consumer adds later, about a copy of its message, may follow it). */
    private static JsonObject closing(JsonObject deadLetter, String action) {
        return deadLetter.getJsonArray("history").getValuesAs(JsonObject.class).stream().filter(e -> action.equals(e.getString("action")))
                .findFirst().orElseThrow(() -> new AssertionError("no " + action + " in " + deadLetter));
    }

    @Test
    void aBulkDiscardClosesTheDeadLettersAboutAMessageThatARequeueNeverCountsAuditedWithTheRequesterAndNote() {
        String id = operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"permanent\"}}}");
        long own = awaitRun(id, "DEAD_LETTERED").getJsonObject("deadLetter").getInt("id");
        // a copy of the run's first dispatch, long done: a dead letter about that message, naming the run
        broker.send(FETCH, "{\"runId\":\"" + id + "\",\"step\":\"fetch\",\"generation\":1}");
        JsonObject stray = Await.until("the copy's dead letter", Duration.ofSeconds(30),
                () -> viewer.get("api/dead-letters?runId=" + id).ok().json().getJsonArray("items").getValuesAs(JsonObject.class),
                items -> items.size() == 2).stream().filter(d -> d.getInt("id") != own).findFirst().orElseThrow();
        assertEquals("STALE_MESSAGE", stray.getString("reason"));

        assertEquals(1, matching("requeue", "runId=" + id), "a requeue brings back the run, never the message on its own");
        assertEquals(2, matching("discard", "runId=" + id), "a discard closes both");
        assertEquals(2, matching("resolve", "runId=" + id));
        JsonObject dryRun = viewer.get("api/bulk-jobs/dry-run?action=discard&runId=" + id).ok().json();
        assertEquals("discard", dryRun.getString("action"));
        assertEquals(id, dryRun.getJsonObject("filter").getString("runId"), "the filter as understood");

        Response started = operator.post("api/bulk-jobs", "{\"action\":\"discard\",\"filter\":{\"runId\":\"" + id
                + "\"},\"ratePerSecond\":0,\"note\":\"the upstream sent garbage all night\"}");
        assertEquals(202, started.status(), started.body());
        assertEquals("discard", started.json().getString("action"));
        assertEquals("the upstream sent garbage all night", started.json().getString("note"), "the job shows its note");
        assertEquals(2, started.json().getInt("total"));
        JsonObject done = awaitJob(started.location(), "COMPLETED");
        assertEquals(2, done.getInt("done"), done.toString());
        assertEquals(0, done.getInt("skipped"), done.toString());
        assertEquals(100, done.getInt("percent"));
        assertEquals("operator", done.getString("requestedBy"));

        for (long deadLetter : List.of(own, (long) stray.getInt("id"))) {
            JsonObject closed = deadLetter(deadLetter);
            assertEquals("DISCARDED", closed.getString("status"), closed.toString());
            assertEquals("operator", closed.getString("closedBy"));
            JsonObject entry = closing(closed, "DISCARDED");
            assertEquals("operator", entry.getString("actor"), "who: the job's requester");
            assertEquals("the upstream sent garbage all night", entry.getString("note"), "why: the job's note");
        }
        JsonObject run = viewer.run(id);
        assertEquals("DEAD_LETTERED", run.getString("state"), "a discard leaves the run where it stopped, for good");
        assertEquals(0, matching("discard", "runId=" + id), "nothing left to do");
    }

    @Test
    void aBulkResolveActsOnlyOnWhatItCountedAndSkipsOneClosedMeanwhileWithItsReason() {
        String marker = marker();
        List<Long> ids = deadLetters(10, marker);
        String query = "error=" + marker;
        assertEquals(10, matching("resolve", query));
        assertEquals(10, matching("requeue", query), "each holds its run: a requeue would count them too");

        // a run that is dead-lettered while the job works, matching its filter: recorded after it started
        String late = startFailing(marker);
        Response started = operator.post("api/bulk-jobs", "{\"action\":\"resolve\",\"filter\":{\"error\":\"" + marker
                + "\"},\"ratePerSecond\":1,\"note\":\"the parser was fixed and the documents reprocessed upstream\"}");
        assertEquals(202, started.status(), started.body());
        assertEquals(10, started.json().getInt("total"), started.body());
        String path = started.location().substring(started.location().indexOf("api/"));
        // closed by hand before the job reaches it (the job does one a second, in id order)
        long closedByHand = ids.stream().mapToLong(Long::longValue).max().orElseThrow();
        operator.post("api/dead-letters/" + closedByHand + "/discard", "{\"note\":\"done by hand\"}").ok();

        long lateDeadLetter = awaitRun(late, "DEAD_LETTERED").getJsonObject("deadLetter").getInt("id");
        assertEquals("RUNNING", viewer.get(path).ok().json().getString("state"), "the late dead letter came while the job ran");
        JsonObject done = awaitJob(started.location(), "COMPLETED");
        assertEquals(10, done.getInt("total"));
        assertEquals(9, done.getInt("done"), done.toString());
        assertEquals(1, done.getInt("skipped"), done.toString());
        assertEquals(100, done.getInt("percent"), "every dead letter it counted was handled: " + done);
        String skipped = done.getString("skippedDetail");
        assertTrue(skipped.startsWith(closedByHand + ": ") && skipped.contains("DISCARDED"), "which, and why: " + skipped);

        for (long id : ids) {
            JsonObject deadLetter = deadLetter(id);
            if (id == closedByHand) {
                assertEquals("DISCARDED", deadLetter.getString("status"), "closed by hand, and left so");
                assertEquals("done by hand", closing(deadLetter, "DISCARDED").getString("note"));
            } else {
                assertEquals("RESOLVED_MANUALLY", deadLetter.getString("status"), deadLetter.toString());
                assertEquals("operator", closing(deadLetter, "RESOLVED").getString("actor"), "who: the job's requester");
                assertEquals("the parser was fixed and the documents reprocessed upstream", closing(deadLetter, "RESOLVED").getString("note"),
                        "why: the job's note");
            }
        }
        assertEquals("PENDING", deadLetter(lateDeadLetter).getString("status"), "recorded after the job started: left alone");
        assertEquals(1, matching("resolve", query), "only the late one is left");
    }

    @Test
    void aCancelledBulkDiscardStopsAndLeavesTheRestOpen() {
        String marker = marker();
        deadLetters(6, marker);
        Response started = operator.post("api/bulk-jobs", "{\"action\":\"discard\",\"filter\":{\"error\":\"" + marker
                + "\"},\"ratePerSecond\":1,\"note\":\"noise\"}");
        assertEquals(202, started.status(), started.body());
        String path = started.location().substring(started.location().indexOf("api/"));
        Await.until("the job to have done part of its work", Duration.ofSeconds(30), () -> viewer.get(path).ok().json(),
                job -> job.getInt("done") >= 1);

        assertEquals(403, viewer.post(path + "/cancel", "").status(), "a viewer cannot cancel");
        operator.post(path + "/cancel", "").ok();
        JsonObject cancelled = awaitJob(started.location(), "CANCELLED");
        int discarded = cancelled.getInt("done");
        assertTrue(discarded < 6, "cancelled before the end: " + cancelled);
        assertEquals(6 - discarded, matching("discard", "error=" + marker), "what it did not do is still open");
        assertEquals(409, operator.post(path + "/cancel", "").status(), "a finished job cannot be cancelled");
    }

    @Test
    void requeueJobsAreBulkJobsAndTheRequeueJobsApiShowsOnlyThem() {
        String marker = marker();
        long deadLetter = deadLetters(1, marker).get(0);
        Response requeue = operator.post("api/requeue-jobs", "{\"filter\":{\"error\":\"" + marker + "\"},\"ratePerSecond\":0}");
        assertEquals(202, requeue.status(), requeue.body());
        long requeueJob = requeue.json().getJsonNumber("id").longValue();
        assertEquals("requeue", requeue.json().getString("action"));
        JsonObject asBulk = awaitJob("api/bulk-jobs/" + requeueJob, "COMPLETED");
        assertEquals("requeue", asBulk.getString("action"));
        assertEquals(1, asBulk.getInt("requeued"));
        assertEquals(1, asBulk.getInt("done"));
        assertFalse(asBulk.containsKey("note") && !asBulk.isNull("note"), "a requeue has no note: " + asBulk);

        // the run fails again (always): a new dead letter, discarded through the bulk API
        String runId = deadLetter(deadLetter).getString("runId");
        Await.until("the requeued run to stop again", Duration.ofSeconds(60), () -> viewer.run(runId),
                r -> r.getInt("requeueCount") == 1 && "DEAD_LETTERED".equals(r.getString("state")));
        Response discard = operator.post("api/bulk-jobs", "{\"action\":\"discard\",\"filter\":{\"runId\":\"" + runId
                + "\"},\"note\":\"gave up on it\"}");
        assertEquals(202, discard.status(), discard.body());
        long discardJob = discard.json().getJsonNumber("id").longValue();
        awaitJob(discard.location(), "COMPLETED");

        List<Long> bulk = ids(viewer.get("api/bulk-jobs").ok().body());
        assertTrue(bulk.contains(requeueJob) && bulk.contains(discardJob), "every job is a bulk job: " + bulk);
        List<Long> requeues = ids(viewer.get("api/requeue-jobs").ok().body());
        assertTrue(requeues.contains(requeueJob), "the requeue job: " + requeues);
        assertFalse(requeues.contains(discardJob), "the requeue jobs' API shows requeues only: " + requeues);
        assertEquals(404, viewer.get("api/requeue-jobs/" + discardJob).status());
        assertEquals(404, operator.post("api/requeue-jobs/" + discardJob + "/cancel", "").status());
        assertEquals(200, viewer.get("api/requeue-jobs/" + requeueJob).status());
    }

    private static List<Long> ids(String jobs) {
        try (var reader = jakarta.json.Json.createReader(new java.io.StringReader(jobs))) {
            return reader.readArray().stream().map(j -> j.asJsonObject().getJsonNumber("id").longValue()).toList();
        }
    }

    @Test
    void badBulkJobRequestsAreRefusedWithProblemsAndStartNothing() {
        String marker = marker();
        long before = ids(viewer.get("api/bulk-jobs").ok().body()).size();
        String filter = "\"filter\":{\"error\":\"" + marker + "\"}";
        refused(operator.post("api/bulk-jobs", "{" + filter + ",\"note\":\"why\"}"), 400, "action");
        refused(operator.post("api/bulk-jobs", "{\"action\":\"purge\"," + filter + ",\"note\":\"why\"}"), 400, "requeue, discard, resolve");
        refused(operator.post("api/bulk-jobs", "{\"action\":\"DISCARD\"," + filter + ",\"note\":\"why\"}"), 400, "requeue, discard, resolve");
        refused(operator.post("api/bulk-jobs", "{\"action\":7," + filter + ",\"note\":\"why\"}"), 400, "action");
        refused(operator.post("api/bulk-jobs", "{\"action\":\"discard\"," + filter + "}"), 400, "'note' is required");
        refused(operator.post("api/bulk-jobs", "{\"action\":\"resolve\"," + filter + ",\"note\":\"  \"}"), 400, "'note' is required");
        refused(operator.post("api/bulk-jobs", "{\"action\":\"discard\"," + filter + ",\"note\":\"" + "n".repeat(4001) + "\"}"), 400, "4000");
        refused(operator.post("api/bulk-jobs", "{\"action\":\"discard\"," + filter + ",\"note\":\"a\\u0000b\"}"), 400, "control character");
        refused(operator.post("api/bulk-jobs", "{\"action\":\"requeue\"," + filter + ",\"note\":\"why\"}"), 400, "note");
        refused(operator.post("api/bulk-jobs", "{\"action\":\"discard\"," + filter + ",\"note\":\"why\",\"ratePerSecond\":-1}"), 400, "ratePerSecond");
        refused(operator.post("api/bulk-jobs", "{\"action\":\"discard\"," + filter + ",\"note\":\"why\",\"ratePerSecond\":100001}"), 400, "ratePerSecond");
        refused(operator.post("api/bulk-jobs", "{\"action\":\"discard\"," + filter + ",\"note\":\"why\",\"notes\":\"x\"}"), 400, "notes");
        refused(operator.post("api/bulk-jobs", "{\"action\":\"discard\",\"filter\":{\"errors\":\"x\"},\"note\":\"why\"}"), 400, "errors");
        refused(operator.post("api/bulk-jobs", "{\"action\":\"discard\",\"filter\":{\"status\":\"DISCARDED\",\"error\":\"" + marker
                + "\"},\"note\":\"why\"}"), 422, "closed");
        assertEquals(403, viewer.post("api/bulk-jobs", "{\"action\":\"discard\"," + filter + ",\"note\":\"why\"}").status());
        assertEquals(before, ids(viewer.get("api/bulk-jobs").ok().body()).size(), "no job was started");

        refused(viewer.get("api/bulk-jobs/dry-run?error=" + marker), 400, "action");
        refused(viewer.get("api/bulk-jobs/dry-run?action=purge&error=" + marker), 400, "requeue, discard, resolve");
        refused(viewer.get("api/bulk-jobs/dry-run?action=discard&errors=x"), 400, "errors");
        assertEquals(0, matching("discard", "status=DISCARDED&error=" + marker), "closed dead letters are never selected");
        assertEquals(404, viewer.get("api/bulk-jobs/999999999").status());
        assertEquals(404, operator.post("api/bulk-jobs/999999999/cancel", "").status());
    }

    private static void refused(Response answer, int status, String mentions) {
        assertEquals(status, answer.status(), answer.body());
        assertEquals("application/problem+json", answer.contentType(), answer.body());
        assertTrue(answer.json().getString("detail").contains(mentions), answer.json().getString("detail"));
    }

    // ---- the admin page ---------------------------------------------------------------------------------------

    @Test
    void discardAllOnTheDeadLetterListAsksWithTheCountAndDiscardsExactlyWhatThePageCounted() {
        String marker = marker();
        List<Long> ids = deadLetters(2, marker);
        AdminPage page = new AdminPage(base);
        page.signIn("operator", "operator-pw");
        String list = "admin/dead-letters.xhtml?error=" + marker;
        page.open(list);
        assertTrue(page.html().contains("data-confirm=\"Discard all 2 matching dead letters?\""), page.html());
        assertTrue(page.html().contains("data-confirm=\"Resolve all 2 matching dead letters?\""), page.html());
        assertTrue(page.html().contains("data-confirm=\"Requeue all 2 matching dead letters?\""), page.html());

        // bad input is a message on the page, and starts nothing
        long jobsBefore = ids(viewer.get("api/bulk-jobs").ok().body()).size();
        AdminPage.Answer answer = page.submit("bulk", Map.of("bulk:rate", "0", "bulk:note", "", "bulk:discardAll", "Discard all 2"));
        assertEquals(200, answer.status(), answer.body());
        assertTrue(answer.body().contains("&#39;note&#39; is required") || answer.body().contains("'note' is required"), answer.body());
        answer = page.submit("bulk", Map.of("bulk:rate", "0", "bulk:note", "n".repeat(4001), "bulk:discardAll", "Discard all 2"));
        assertEquals(200, answer.status(), answer.body());
        assertTrue(answer.body().contains("4000"), answer.body());
        answer = page.submit("bulk", Map.of("bulk:rate", "-1", "bulk:note", "why", "bulk:discardAll", "Discard all 2"));
        assertEquals(200, answer.status(), answer.body());
        assertTrue(answer.body().contains("100000"), "the page says what a rate may be: " + answer.body());
        assertEquals(jobsBefore, ids(viewer.get("api/bulk-jobs").ok().body()).size(), "no job was started");

        // one more matching dead letter, after the page counted: the job leaves it alone
        long late = deadLetters(1, marker).get(0);
        answer = page.submit("bulk", Map.of("bulk:rate", "0", "bulk:note", "test documents, never real", "bulk:discardAll", "Discard all 2"));
        assertEquals(200, answer.status(), answer.body());
        assertTrue(answer.body().contains("id=\"job-state\""), "the job's page: " + answer.body());
        List<Long> jobs = ids(viewer.get("api/bulk-jobs").ok().body());
        JsonObject job = awaitJob("api/bulk-jobs/" + jobs.get(0), "COMPLETED");
        assertEquals("discard", job.getString("action"));
        assertEquals(2, job.getInt("total"), "what the page counted: " + job);
        assertEquals(2, job.getInt("done"));
        for (long id : ids) {
            assertEquals("DISCARDED", deadLetter(id).getString("status"));
            assertEquals("test documents, never real", closing(deadLetter(id), "DISCARDED").getString("note"));
        }
        assertEquals("PENDING", deadLetter(late).getString("status"), "not counted by the page: left alone");

        page.open("admin/requeue-job.xhtml?id=" + jobs.get(0));
        assertTrue(page.html().contains("test documents, never real"), "the job page shows the note: " + page.html());
        assertTrue(page.html().contains("2</strong> of 2 discarded"), page.html());
        page.open("admin/requeue-jobs.xhtml");
        assertTrue(page.html().contains("test documents, never real") && page.html().contains("Discard"), page.html());
    }

    @Test
    void aBulkActionWhoseCountChangedSinceThePageCountedItIsRefusedAndNothingIsDone() {
        String marker = marker();
        List<Long> ids = deadLetters(2, marker);
        AdminPage page = new AdminPage(base);
        page.signIn("operator", "operator-pw");
        page.open("admin/dead-letters.xhtml?error=" + marker);
        assertTrue(page.html().contains("Resolve all 2"), page.html());
        operator.post("api/dead-letters/" + ids.get(0) + "/discard", "{\"note\":\"meanwhile\"}").ok();
        long jobsBefore = ids(viewer.get("api/bulk-jobs").ok().body()).size();

        AdminPage.Answer answer = page.submit("bulk", Map.of("bulk:rate", "0", "bulk:note", "fixed", "bulk:resolveAll", "Resolve all 2"));
        assertEquals(200, answer.status(), answer.body());
        assertTrue(answer.body().contains("1 match now, not 2"), "the page says the count changed: " + answer.body());
        assertEquals(jobsBefore, ids(viewer.get("api/bulk-jobs").ok().body()).size(), "no job was started");
        assertEquals("PENDING", deadLetter(ids.get(1)).getString("status"));
        assertTrue(answer.body().contains("Resolve all 1"), "the page counts again: " + answer.body());
    }

    @Test
    void aViewerSeesNoBulkButtons() {
        String marker = marker();
        deadLetters(1, marker);
        AdminPage page = new AdminPage(base);
        page.signIn("viewer", "viewer-pw");
        page.open("admin/dead-letters.xhtml?error=" + URLEncoder.encode(marker, StandardCharsets.UTF_8));
        assertTrue(page.html().contains(marker), page.html());
        assertFalse(page.html().contains("Discard all") || page.html().contains("Resolve all") || page.html().contains("Requeue all"),
                page.html());
        assertFalse(page.html().contains("id=\"bulk\""), page.html());
    }
}
