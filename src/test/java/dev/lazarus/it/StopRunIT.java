package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.it.Api.Response;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.StringReader;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * An operator stops a live run by hand ({@code POST /api/runs/{id}/stop}, or the run page's Stop button): it ends as a
 * {@code MANUAL} dead letter with who and why, every message of the dispatch it was at is fenced (one waiting for its
 * redelivery never runs the step, a handler already running has its result discarded), and a requeue brings it back
 * like any dead letter.
 */
class StopRunIT extends LazarusIT {

    private static final String WHY = "the index is being rebuilt; stop feeding it";

    /** A run whose index step hangs for {@code seconds}, once it is in progress there (index is stuck only after 2 minutes). */
    private String hangingAtIndex(int seconds) {
        String id = operator.startRun("{\"failures\":{\"index\":{\"mode\":\"hang\",\"seconds\":" + seconds + "}}}");
        Await.until("run " + id + " to be in progress at index", Duration.ofSeconds(60), () -> viewer.run(id),
                run -> "IN_PROGRESS".equals(run.getString("state")) && "index".equals(run.getString("currentStep")));
        return id;
    }

    private Response stop(Api who, String runId, String body) {
        return who.post("api/runs/" + runId + "/stop", body);
    }

    private static String note(String text) {
        return "{\"note\":\"" + text + "\"}";
    }

    @Test
    void stoppingARunWhoseStepHangsEndsItAsAManualDeadLetterWithWhoAndWhyAndTheLateResultIsDiscarded() {
        String counted = "lazarus_dead_letters_total{pipeline=\"document-ingestion\",reason=\"MANUAL\",step=\"index\"}";
        String failedWrites = "lazarus_diagnostics_write_failures_total{what=\"step_success\"}";
        Map<String, Double> before = scrape();
        String id = hangingAtIndex(8);

        Response answer = stop(operator, id, note(WHY));
        assertEquals(200, answer.status(), answer.body());
        JsonObject stopped = answer.json();
        assertEquals(id, stopped.getString("id"));
        assertEquals("DEAD_LETTERED", stopped.getString("state"));
        assertEquals("index", stopped.getString("currentStep"));
        JsonObject deadLetter = stopped.getJsonObject("deadLetter");
        assertEquals("MANUAL", deadLetter.getString("reason"));
        assertEquals("PENDING", deadLetter.getString("status"), "open: it can be requeued");
        assertEquals("index", deadLetter.getString("step"));
        assertEquals("operator", deadLetter.getString("detectedBy"));
        assertTrue(deadLetter.getString("errorMessage").contains(WHY), deadLetter.getString("errorMessage"));
        JsonObject created = deadLetter.getJsonArray("history").getJsonObject(0);
        assertEquals("CREATED", created.getString("action"));
        assertEquals("operator", created.getString("actor"), "who: the signed-in operator, never the request");
        assertEquals(WHY, created.getString("note"), "why");
        long generation = stopped.getJsonNumber("generation").longValue();
        assertEquals(deadLetter.getJsonNumber("generation").longValue() + 1, generation,
                "the stop moved the run past the dispatch it stopped: every message of that dispatch is stale");

        // the handler still hangs; when it returns its result must not count, and its redelivery is parked with the dead letter
        Await.until("the hanging delivery to end and its message to be parked in DLQ." + INDEX, Duration.ofSeconds(60),
                () -> broker.messagesOfRun("DLQ." + INDEX, id), m -> m.size() == 1);
        JsonObject after = viewer.run(id);
        assertEquals("DEAD_LETTERED", after.getString("state"), "the late result did not complete the run");
        assertEquals(generation, after.getJsonNumber("generation").longValue());
        assertFalse(after.getJsonObject("payload").containsKey("indexKey"), "the index step's output was not recorded: " + after.get("payload"));
        List<JsonObject> index = executions(after, "index");
        assertEquals(1, index.size(), index.toString());
        assertEquals("FAILED", index.get(0).getString("state"));
        assertEquals(1, index.get(0).getInt("attempts"), "the redelivery was parked, not run");
        assertEquals(deadLetter.getInt("id"), after.getJsonObject("deadLetter").getInt("id"), "the stop's dead letter holds the run");

        // counted and logged like a dead letter of any other reason
        Await.until("the MANUAL dead letter to be counted", Duration.ofSeconds(30), this::scrape,
                samples -> samples.getOrDefault(counted, 0.0) >= before.getOrDefault(counted, 0.0) + 1);
        assertEquals(before.getOrDefault(failedWrites, 0.0), scrape().getOrDefault(failedWrites, 0.0),
                "a result discarded because its run was stopped is no failed write (an alert fires on those)");
        Path log = Path.of(System.getProperty("it.base.dir"), "log", "lazarus-events.log");
        List<JsonObject> lines = Await.until("the stop's lines in " + log, Duration.ofSeconds(30), () -> eventsOf(log, id),
                found -> found.stream().anyMatch(line -> "DEAD_LETTER".equals(line.getString("event"))));
        assertTrue(lines.stream().anyMatch(line -> "DEAD_LETTER".equals(line.getString("event")) && "MANUAL".equals(line.getString("reason"))
                && String.valueOf(deadLetter.getInt("id")).equals(line.getString("deadLetterId"))), lines.toString());
        assertTrue(lines.stream().anyMatch(line -> "RUN".equals(line.getString("event")) && "DEAD_LETTERED".equals(line.getString("state"))
                && "index".equals(line.getString("step"))), "the run's stop is a line: " + lines);
    }

    @Test
    void aMessageWaitingForItsRedeliveryWhenTheRunIsStoppedNeverRunsTheStepAndARequeueBringsTheRunBackToComplete() {
        // parse fails twice, then succeeds; its third delivery waits 2 s for the broker's backoff
        String id = operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"transient\",\"succeedOnAttempt\":3}}}");
        Await.until("parse to have failed twice", Duration.ofSeconds(60), () -> viewer.run(id), run -> "RETRYING".equals(run.getString("state"))
                && "parse".equals(run.getString("currentStep")) && executions(run, "parse").get(0).getInt("attempts") == 2);

        JsonObject stopped = stop(operator, id, note("parse is broken for everyone; hold this one")).ok().json();
        JsonObject deadLetter = stopped.getJsonObject("deadLetter");
        assertEquals("MANUAL", deadLetter.getString("reason"));
        assertEquals("parse", deadLetter.getString("step"));
        assertEquals(2, deadLetter.getInt("attempts"), "stopped while the third delivery waited for its backoff, not during it");

        Await.until("the waiting redelivery to be parked in DLQ." + PARSE, Duration.ofSeconds(30),
                () -> broker.messagesOfRun("DLQ." + PARSE, id), m -> m.size() == 1);
        JsonObject after = viewer.run(id);
        assertEquals("DEAD_LETTERED", after.getString("state"));
        assertEquals("parse", after.getString("currentStep"));
        List<JsonObject> parse = executions(after, "parse");
        assertEquals(1, parse.size());
        assertEquals(2, parse.get(0).getInt("attempts"), "the waiting message never ran the step");
        assertEquals("FAILED", parse.get(0).getString("state"));
        assertTrue(executions(after, "index").isEmpty(), "the run did not move on");

        // requeue brings it back like any dead letter: at the step it was stopped at, with a full set of attempts
        JsonObject requeued = operator.post("api/dead-letters/" + deadLetter.getInt("id") + "/requeue", "").ok().json();
        assertEquals("REQUEUED", requeued.getString("status"));
        assertEquals("MOVED_FROM_DLQ", requeued.getString("requeueMethod"));
        JsonObject run = awaitRun(id, "COMPLETED");
        assertEquals(1, run.getInt("requeueCount"));
        parse = executions(run, "parse");
        assertEquals(2, parse.size(), "the stopped dispatch and the requeued one");
        assertEquals("COMPLETED", parse.get(1).getString("state"));
        assertEquals(3, parse.get(1).getInt("attempts"), "the requeued dispatch started its attempts afresh");
        assertTrue(broker.messagesOfRun(PARSE, id).isEmpty() && broker.messagesOfRun("DLQ." + PARSE, id).isEmpty(),
                "no copy left anywhere");
        assertEquals(1, viewer.get("api/dead-letters?runId=" + id).ok().json().getInt("total"), "one dead letter: the stop's");
    }

    @Test
    void aRunThatHasEndedCannotBeStoppedAndOfTwoStopsAtOnceOneWins() throws Exception {
        String completed = operator.startRun("{\"url\":\"https://example.org/done\"}");
        awaitRun(completed, "COMPLETED");
        Response refused = stop(operator, completed, note("too late"));
        assertEquals(409, refused.status(), refused.body());
        assertEquals("application/problem+json", refused.contentType());
        assertTrue(refused.json().getString("detail").contains("COMPLETED"), refused.body());
        assertEquals(0, viewer.get("api/dead-letters?runId=" + completed).ok().json().getInt("total"), "nothing recorded");

        String id = hangingAtIndex(3);
        ExecutorService operators = Executors.newFixedThreadPool(2);
        CountDownLatch go = new CountDownLatch(1);
        List<Response> answers = new ArrayList<>();
        try {
            List<Future<Response>> clicks = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                String why = "stop number " + i;
                clicks.add(operators.submit(() -> {
                    go.await();
                    return stop(operator, id, note(why));
                }));
            }
            go.countDown();
            for (Future<Response> click : clicks) {
                answers.add(click.get(60, TimeUnit.SECONDS));
            }
        } finally {
            operators.shutdownNow();
        }
        assertEquals(List.of(200, 409), answers.stream().map(Response::status).sorted().toList(),
                "one stop wins, the other is told the run has ended: " + answers);
        Response second = answers.stream().filter(a -> a.status() == 409).findFirst().orElseThrow();
        assertTrue(second.json().getString("detail").contains("DEAD_LETTERED"), second.body());
        assertEquals(1, viewer.get("api/dead-letters?runId=" + id).ok().json().getInt("total"), "one dead letter for the run");
        assertEquals(409, stop(operator, id, note("and again")).status(), "a stopped run stays stopped");
    }

    @Test
    void aStopNeedsANoteWithinItsLimitAndNoOtherFieldAndOnlyAnOperatorMayStop() {
        String id = hangingAtIndex(10);
        Map<String, String> refusals = new java.util.LinkedHashMap<>();
        refusals.put("", "'note' is required");
        refusals.put("{}", "'note' is required");
        refusals.put(note("  "), "'note' is required");
        refusals.put(note("n".repeat(4001)), "4000");
        refusals.put(note("before\\u0000after"), "control character");
        refusals.put("{\"note\":5}", "'note'");
        refusals.put("{\"note\":\"why\",\"by\":\"someone else\"}", "unknown field");
        refusals.put("[\"why\"]", "object");
        refusals.forEach((body, mentions) -> {
            Response answer = stop(operator, id, body);
            assertEquals(400, answer.status(), body + ": " + answer.body());
            assertEquals("application/problem+json", answer.contentType());
            assertTrue(answer.json().getString("detail").contains(mentions), body + ": " + answer.json().getString("detail"));
        });
        assertEquals(403, stop(viewer, id, note("a viewer may not")).status());
        assertEquals(401, stop(anonymous, id, note("nobody may")).status());
        assertEquals(415, operator.postAs("api/runs/" + id + "/stop", "text/plain", note("not JSON")).status());
        JsonObject run = viewer.run(id);
        assertEquals("IN_PROGRESS", run.getString("state"), "nothing refused stopped the run");
        assertEquals(0, viewer.get("api/dead-letters?runId=" + id).ok().json().getInt("total"), "nothing refused recorded anything");

        assertEquals(404, stop(operator, UUID.randomUUID().toString(), note("no such run")).status());
        assertEquals(404, stop(operator, "not-a-run", note("no such run")).status());
        assertEquals(404, stop(operator, "1%27%20or%20%271%27=%271", note("no such run")).status());

        // exactly at the limit is a note like any other
        String longest = "n".repeat(4000);
        JsonObject stopped = stop(operator, id, note(longest)).ok().json();
        assertEquals(longest, stopped.getJsonObject("deadLetter").getJsonArray("history").getJsonObject(0).getString("note"));
    }

    @Test
    void theRunPageOffersOperatorsAStopButtonThatAsksFirstAndStopsTheRun() {
        String id = hangingAtIndex(10);
        AdminPage asViewer = new AdminPage(base);
        asViewer.signIn("viewer", "viewer-pw");
        String viewerPage = asViewer.open("admin/run.xhtml?id=" + id).body();
        assertTrue(viewerPage.contains(id), "a viewer sees the run");
        assertFalse(viewerPage.contains("id=\"stop\""), "and is offered no Stop button");

        AdminPage page = new AdminPage(base);
        page.signIn("operator", "operator-pw");
        String html = page.open("admin/run.xhtml?id=" + id).body();
        assertTrue(html.contains("id=\"stop:stopRun\""), "an operator is offered Stop on a live run");
        assertTrue(html.matches("(?s).*id=\"stop:stopRun\"[^>]*data-confirm=\"[^\"]+\".*")
                || html.matches("(?s).*data-confirm=\"[^\"]+\"[^>]*id=\"stop:stopRun\".*"), "Stop asks first");

        String refused = page.submit("stop", Map.of("stop:note", "", "stop:stopRun", "Stop")).body();
        assertTrue(refused.contains("&#39;note&#39; is required") || refused.contains("'note' is required"), "a stop needs a note");
        assertEquals("IN_PROGRESS", viewer.run(id).getString("state"));

        String done = page.submit("stop", Map.of("stop:note", "stopped from its page", "stop:stopRun", "Stop")).body();
        assertTrue(done.contains("Stopped"), done);
        assertFalse(done.contains("id=\"stop:stopRun\""), "a stopped run offers no Stop");
        assertTrue(done.contains("id=\"held-by\""), "the page names the dead letter that now holds the run");
        JsonObject run = viewer.run(id);
        assertEquals("DEAD_LETTERED", run.getString("state"));
        JsonObject deadLetter = run.getJsonObject("deadLetter");
        assertEquals("MANUAL", deadLetter.getString("reason"));
        JsonObject created = deadLetter.getJsonArray("history").getJsonObject(0);
        assertEquals("operator", created.getString("actor"));
        assertEquals("stopped from its page", created.getString("note"));
    }

    // ---- what an operator watches ----------------------------------------------------------------------------

    private Map<String, Double> scrape() {
        try {
            Api metrics = new Api(new URL("http://127.0.0.1:" + Integer.getInteger("it.management.port", 10090) + "/"), "metrics", "metrics-pw");
            Response response = metrics.get("prometheus");
            assertEquals(200, response.status(), response.body());
            return response.body().lines().filter(line -> line.startsWith("lazarus_"))
                    .collect(java.util.stream.Collectors.toMap(
                            line -> line.substring(0, line.lastIndexOf(' ')).replace("WF_DEPLOYMENT=\"lazarus.war\",", ""),
                            line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)), (a, b) -> b));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The "mdc" fields of the structured log's lines about this run, oldest first. */
    private static List<JsonObject> eventsOf(Path log, String runId) {
        try {
            return Files.readAllLines(log).stream().filter(line -> line.contains(runId))
                    .map(line -> Json.createReader(new StringReader(line)).readObject().getJsonObject("mdc"))
                    .filter(mdc -> runId.equals(mdc.getString("runId", null))).toList();
        } catch (IOException e) {
            return List.of();
        }
    }
}
