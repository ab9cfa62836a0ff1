package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.it.Api.Response;
import jakarta.json.JsonObject;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Bulk requeue by filter: dry run, rate limit, live progress, cancel, and exactly one message back per run. */
class BulkRequeueIT extends LazarusIT {

    /** Starts {@code count} runs whose {@code step} fails until requeued; returns them once all are dead-lettered. */
    private List<String> deadLetteredRuns(int count, String step) {
        List<String> runs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            runs.add(operator.startRun("{\"failures\":{\"" + step + "\":{\"mode\":\"until-requeued\"}}}"));
        }
        runs.forEach(id -> awaitRun(id, "DEAD_LETTERED"));
        return runs;
    }

    private static String filter(String step, Instant from) {
        return "{\"step\":\"" + step + "\",\"from\":\"" + from + "\",\"error\":\"OUTAGE in " + step + "\"}";
    }

    private JsonObject awaitJob(String location, String state) {
        String path = location.substring(location.indexOf("api/"));
        return Await.until("job " + path + " to be " + state, Duration.ofSeconds(60), () -> viewer.get(path).ok().json(),
                job -> state.equals(job.getString("state")));
    }

    @Test
    void dryRunCountsThenTheJobRequeuesEachMatchingRunExactlyOnce() {
        Instant from = Instant.now();
        List<String> index = deadLetteredRuns(5, "index");
        List<String> parse = deadLetteredRuns(2, "parse");
        index.forEach(id -> Await.until("its message in the DLQ", Duration.ofSeconds(15),
                () -> broker.messagesOfRun("DLQ." + INDEX, id).size(), n -> n == 1));

        String query = "step=index&from=" + URLEncoder.encode(from.toString(), StandardCharsets.UTF_8) + "&error=outage";
        assertEquals(5, viewer.get("api/requeue-jobs/dry-run?" + query).ok().json().getInt("matching"));
        assertEquals(5, viewer.get("api/dead-letters?open=true&" + query).ok().json().getInt("total"), "the list shows the same");

        Response started = operator.post("api/requeue-jobs", "{\"filter\":" + filter("index", from) + ",\"ratePerSecond\":0}");
        assertEquals(202, started.status(), started.body());
        assertEquals(5, started.json().getInt("total"));
        JsonObject done = awaitJob(started.location(), "COMPLETED");
        assertEquals(5, done.getInt("requeued"));
        assertEquals(0, done.getInt("redispatched"), "every message was moved back from its DLQ");
        assertEquals("operator", done.getString("requestedBy"));

        for (String id : index) {
            JsonObject run = awaitRun(id, "COMPLETED");
            assertEquals(1, run.getInt("requeueCount"), "requeued once");
            assertEquals("MOVED_FROM_DLQ", run.getJsonObject("deadLetter").getString("requeueMethod"));
            assertTrue(broker.messagesOfRun("DLQ." + INDEX, id).isEmpty());
        }
        parse.forEach(id -> assertEquals("DEAD_LETTERED", viewer.run(id).getString("state"), "outside the filter: untouched"));
        assertEquals(0, viewer.get("api/requeue-jobs/dry-run?" + query).ok().json().getInt("matching"), "nothing left to do");
    }

    @Test
    void deadLettersAreGroupedByCauseAndAGroupIsWhatTheDryRunAndTheJobSelect() {
        Instant from = Instant.now();
        List<String> outages = deadLetteredRuns(3, "parse"); // an outage downstream: one cause
        List<String> bugs = new ArrayList<>();
        for (int i = 0; i < 2; i++) { // a failure in parse on every attempt, each with its own message: another cause
            bugs.add(operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"always\",\"message\":\"document " + i + " is broken\"}}}"));
        }
        bugs.forEach(id -> awaitRun(id, "DEAD_LETTERED"));

        JsonObject causes = viewer.get("api/dead-letters/causes?from=" + from).ok().json();
        assertEquals(2, causes.getInt("causes"), causes.toString());
        assertEquals(5, causes.getInt("deadLetters"));
        JsonObject largest = causes.getJsonArray("groups").getJsonObject(0);
        assertEquals(3, largest.getInt("count"), "the largest group first: " + causes);
        assertEquals("java.io.UncheckedIOException", largest.getString("exceptionClass"));
        assertTrue(largest.getString("topFrame").startsWith("dev.lazarus.demo.control."), largest.getString("topFrame"));
        JsonObject other = causes.getJsonArray("groups").getJsonObject(1);
        assertEquals(2, other.getInt("count"), "messages that differ do not split a cause");
        String cause = largest.getString("cause");
        assertEquals(cause, viewer.get("api/dead-letters?runId=" + outages.get(0)).ok().json().getJsonArray("items").getJsonObject(0)
                .getString("cause"), "each dead letter names its cause");

        String query = "cause=" + cause + "&from=" + from;
        assertEquals(3, viewer.get("api/dead-letters?" + query).ok().json().getInt("total"));
        assertEquals(3, viewer.get("api/requeue-jobs/dry-run?" + query).ok().json().getInt("matching"));
        Response started = operator.post("api/requeue-jobs", "{\"filter\":{\"cause\":\"" + cause + "\",\"from\":\"" + from
                + "\"},\"ratePerSecond\":0}");
        assertEquals(202, started.status(), started.body());
        JsonObject done = awaitJob(started.location(), "COMPLETED");
        assertEquals(3, done.getInt("requeued"));
        assertEquals(cause, done.getJsonObject("filter").getString("cause"), "the job shows its filter");
        outages.forEach(id -> awaitRun(id, "COMPLETED"));
        bugs.forEach(id -> assertEquals("DEAD_LETTERED", viewer.run(id).getString("state"), "another cause: untouched"));

        assertEquals(400, viewer.get("api/requeue-jobs/dry-run?cause=not-a-fingerprint").status());
    }

    @Test
    void aRateLimitedJobShowsItsProgressAndStopsWhenCancelled() {
        Instant from = Instant.now();
        List<String> runs = deadLetteredRuns(6, "parse");

        Response started = operator.post("api/requeue-jobs", "{\"filter\":" + filter("parse", from) + ",\"ratePerSecond\":1}");
        assertEquals(202, started.status(), started.body());
        String path = started.location().substring(started.location().indexOf("api/"));
        JsonObject partway = Await.until("the job to have done part of its work", Duration.ofSeconds(30),
                () -> viewer.get(path).ok().json(), job -> job.getInt("requeued") >= 1);
        assertEquals("RUNNING", partway.getString("state"));
        assertTrue(partway.getInt("percent") < 100, "live progress: " + partway);

        assertEquals(403, viewer.post(path + "/cancel", "").status(), "a viewer cannot cancel");
        operator.post(path + "/cancel", "").ok();
        JsonObject cancelled = awaitJob(started.location(), "CANCELLED");
        int requeued = cancelled.getInt("requeued");
        assertTrue(requeued < 6, "cancelled before the end: " + cancelled);

        long neverRequeued = runs.stream().filter(id -> viewer.run(id).getInt("requeueCount") == 0).count();
        assertEquals(6 - requeued, neverRequeued, "what the job did not do is still dead-lettered, nothing is lost");
        assertEquals(6 - requeued, viewer.get("api/requeue-jobs/dry-run?step=parse&from="
                + URLEncoder.encode(from.toString(), StandardCharsets.UTF_8) + "&error=outage").ok().json().getInt("matching"));
    }

    @Test
    void badJobRequestsAreRefusedWithProblems() {
        assertEquals(400, operator.post("api/requeue-jobs", "{\"ratePerSecond\":-1}").status());
        assertEquals(400, operator.post("api/requeue-jobs", "{\"filter\":{\"reason\":\"SLEEPY\"}}").status());
        assertEquals(400, operator.post("api/requeue-jobs", "{\"filter\":{\"from\":\"yesterday\"}}").status());
        assertEquals(403, viewer.post("api/requeue-jobs", "{}").status());
        assertEquals(404, viewer.get("api/requeue-jobs/999999").status());
    }

    @Test
    void aJobActsOnExactlyWhatItsDryRunCountedAndShowsItsFilter() {
        Instant from = Instant.now();
        List<String> runs = deadLetteredRuns(3, "index");
        String only = runs.get(0);
        String window = "&from=" + URLEncoder.encode(from.toString(), StandardCharsets.UTF_8);

        assertEquals(1, viewer.get("api/requeue-jobs/dry-run?runId=" + only + window).ok().json().getInt("matching"));
        Response started = operator.post("api/requeue-jobs", "{\"filter\":{\"runId\":\"" + only + "\",\"from\":\"" + from
                + "\"},\"ratePerSecond\":0}");
        assertEquals(202, started.status(), started.body());
        assertEquals(1, started.json().getInt("total"), started.body());
        assertEquals(only, started.json().getJsonObject("filter").getString("runId"), "the job shows its filter");
        assertEquals(1, awaitJob(started.location(), "COMPLETED").getInt("requeued"));
        awaitRun(only, "COMPLETED");
        runs.subList(1, 3).forEach(id -> assertEquals("DEAD_LETTERED", viewer.run(id).getString("state"), "outside the filter"));

        // nothing is under investigation: a job for INVESTIGATING has nothing to do, and does nothing
        assertEquals(0, viewer.get("api/requeue-jobs/dry-run?status=INVESTIGATING" + window).ok().json().getInt("matching"));
        Response investigating = operator.post("api/requeue-jobs", "{\"filter\":{\"status\":\"INVESTIGATING\",\"from\":\""
                + from + "\"},\"ratePerSecond\":0}");
        assertEquals(202, investigating.status(), investigating.body());
        assertEquals(0, investigating.json().getInt("total"));
        assertEquals(0, awaitJob(investigating.location(), "COMPLETED").getInt("requeued"));
        runs.subList(1, 3).forEach(id -> assertEquals(0, viewer.run(id).getInt("requeueCount"), "untouched"));
    }

    @Test
    void aFilterTheJobCannotHonourIsRefusedNeverDropped() {
        Response unknown = operator.post("api/requeue-jobs", "{\"filter\":{\"runID\":\"0b7e8e6e-0000-4000-8000-000000000000\"}}");
        assertEquals(400, unknown.status(), unknown.body());
        assertTrue(unknown.json().getString("detail").contains("runID"), unknown.body());
        assertEquals(400, operator.post("api/requeue-jobs", "{\"filters\":{}}").status(), "an unknown field is not ignored either");
        assertEquals(400, viewer.get("api/requeue-jobs/dry-run?runID=x").status(), "nor an unknown query parameter");
        Response closed = operator.post("api/requeue-jobs", "{\"filter\":{\"status\":\"REQUEUED\"}}");
        assertEquals(422, closed.status(), closed.body());
        assertEquals(400, operator.post("api/requeue-jobs", "{\"filter\":{\"runId\":\"not-a-uuid\"}}").status());
    }
}
