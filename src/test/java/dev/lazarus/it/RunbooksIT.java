package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.deadletter.entity.RootCause;
import dev.lazarus.it.Api.Response;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Runbooks and root causes over the API and on the pages: each dead letter shows its reason's runbook and what its step or
 * pipeline adds (the demo's fetch step points at the document service), {@code /api/reasons} lists every reason with
 * its runbook, and a resolve (single, bulk, from the page) may record one of five root causes, which the statistics and
 * the dashboard count.
 */
class RunbooksIT extends LazarusIT {

    private long deadLetterOf(String failures) {
        String id = operator.startRun("{\"failures\":" + failures + "}");
        return awaitRun(id, "DEAD_LETTERED").getJsonObject("deadLetter").getInt("id");
    }

    private long parseRefusal(String marker) {
        return deadLetterOf("{\"parse\":{\"mode\":\"permanent\",\"message\":\"" + marker + " unreadable\"}}");
    }

    /** Dead letters whose errors carry {@code marker} (a permanent failure's message is the demo's own): runs started together. */
    private List<Long> markedDeadLetters(String marker, int count) {
        List<String> runs = new java.util.ArrayList<>();
        for (int i = 0; i < count; i++) {
            runs.add(operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"always\",\"message\":\"" + marker + " broken\"}}}"));
        }
        return runs.stream().map(id -> (long) awaitRun(id, "DEAD_LETTERED").getJsonObject("deadLetter").getInt("id")).toList();
    }

    private JsonObject deadLetter(long id) {
        return viewer.get("api/dead-letters/" + id).ok().json();
    }

    private Map<String, Integer> resolvedByRootCause() {
        JsonObject counts = viewer.get("api/dead-letters/stats").ok().json().getJsonObject("resolvedByRootCause");
        return counts.keySet().stream().collect(java.util.stream.Collectors.toMap(k -> k, counts::getInt));
    }

    @Test
    void aFetchOutOfRetriesShowsItsReasonsRunbookAndTheFetchStepsOwnWordsInTheApiAndOnThePage() {
        long id = deadLetterOf("{\"fetch\":{\"mode\":\"always\"}}");
        JsonObject detail = deadLetter(id);
        assertEquals("RETRIES_EXHAUSTED", detail.getString("reason"));

        JsonObject runbook = detail.getJsonObject("runbook");
        assertEquals("RETRIES_EXHAUSTED", runbook.getString("reason"));
        assertEquals(DeadLetterReason.RETRIES_EXHAUSTED.description(), runbook.getString("meaning"));
        assertEquals(DeadLetterReason.RETRIES_EXHAUSTED.runbook().check(), runbook.getString("check"));
        assertEquals(DeadLetterReason.RETRIES_EXHAUSTED.runbook().act(), runbook.getString("act"));
        JsonObject addition = runbook.getJsonObject("addition");
        assertEquals("step", addition.getString("scope"), "the fetch step's own text, before the pipeline's");
        assertEquals("document-ingestion", addition.getString("pipeline"));
        assertEquals("fetch", addition.getString("step"));
        assertTrue(addition.getString("text").contains("document service"), addition.toString());

        AdminPage page = new AdminPage(base);
        page.signIn("viewer", "viewer-pw");
        String html = page.open("admin/dead-letter.xhtml?id=" + id).body();
        assertTrue(html.contains("<h2>Runbook</h2>"), html);
        assertTrue(html.contains("STEP RUNBOOK"), "the addition is marked as the step's");
        assertTrue(html.contains("The fetch step calls the document service"), html);
        assertTrue(html.contains("lazarus_step_retries_total"), "the reason's own check is shown too");
    }

    @Test
    void aPermanentParseFailureShowsThePipelinesWordsForItsReason() {
        JsonObject runbook = deadLetter(parseRefusal("pipeline-runbook")).getJsonObject("runbook");
        assertEquals(DeadLetterReason.NON_RETRYABLE.runbook().act(), runbook.getString("act"));
        assertEquals("pipeline", runbook.getJsonObject("addition").getString("scope"));
        assertFalse(runbook.getJsonObject("addition").containsKey("step"), "a pipeline's text names no step");
        assertTrue(runbook.getJsonObject("addition").getString("text").contains("document ingestion"));
    }

    @Test
    void theReasonsListEveryReasonWithLabelSeverityPriorityRunbookAndWhatThePipelinesAdd() {
        List<JsonObject> reasons = jakarta.json.Json.createReader(new java.io.StringReader(viewer.get("api/reasons").ok().body())).readArray().getValuesAs(JsonObject.class);
        assertEquals(Arrays.stream(DeadLetterReason.values()).map(Enum::name).toList(), reasons.stream().map(r -> r.getString("code")).toList());
        for (JsonObject reason : reasons) {
            DeadLetterReason registered = DeadLetterReason.valueOf(reason.getString("code"));
            assertEquals(registered.label(), reason.getString("label"));
            assertEquals(registered.severity().name(), reason.getString("severity"));
            assertEquals(registered.priority(), reason.getInt("priority"));
            assertEquals(registered.runbook().check(), reason.getJsonObject("runbook").getString("check"));
            assertFalse(reason.getJsonObject("runbook").getString("act").isBlank());
        }
        JsonObject retries = reasons.get(DeadLetterReason.RETRIES_EXHAUSTED.ordinal());
        List<JsonObject> additions = retries.getJsonArray("additions").getValuesAs(JsonObject.class);
        assertTrue(additions.stream().anyMatch(a -> "fetch".equals(a.getString("step", null)) && "step".equals(a.getString("scope"))), additions.toString());
        assertEquals(400, viewer.get("api/reasons?limit=5").status());
        assertEquals(401, anonymous.get("api/reasons").status());
    }

    @Test
    void aResolveRecordsEachRootCauseKeepsItInTheAuditTrailAndTheStatisticsCountIt() {
        Map<String, Integer> before = resolvedByRootCause();
        for (RootCause cause : RootCause.values()) {
            long id = parseRefusal("root-cause-" + cause);
            String named = cause == RootCause.BAD_DATA ? "bad_data" : cause.name(); // any case
            JsonObject resolved = operator.post("api/dead-letters/" + id + "/resolve", "{\"note\":\"dealt with\",\"rootCause\":\"" + named + "\"}")
                    .ok().json();
            assertEquals("RESOLVED_MANUALLY", resolved.getString("status"));
            assertEquals(cause.name(), resolved.getString("rootCause"));
            JsonObject entry = resolved.getJsonArray("history").getValuesAs(JsonObject.class).stream()
                    .filter(e -> "RESOLVED".equals(e.getString("action"))).findFirst().orElseThrow();
            assertEquals(cause.name(), entry.getJsonObject("detail").getString("rootCause"));
        }
        long without = parseRefusal("root-cause-none");
        assertFalse(operator.post("api/dead-letters/" + without + "/resolve", "{\"note\":\"done\"}").ok().json().containsKey("rootCause"),
                "a root cause is optional");

        Map<String, Integer> after = resolvedByRootCause();
        for (RootCause cause : RootCause.values()) {
            assertEquals(before.get(cause.name()) + 1, after.get(cause.name()), cause.name());
        }
        assertEquals(before.get("NOT_RECORDED") + 1, after.get("NOT_RECORDED"));

        AdminPage dashboard = new AdminPage(base);
        dashboard.signIn("viewer", "viewer-pw");
        String html = dashboard.open("admin/dashboard.xhtml").body();
        assertTrue(html.contains("id=\"root-cause-DEPENDENCY\">" + after.get("DEPENDENCY") + "<"), html);
        assertTrue(html.contains("average time to resolve"));
    }

    @Test
    void anUnknownRootCauseIsRefusedWithTheAllowedOnesAndLeavesTheDeadLetterOpen() {
        long id = parseRefusal("root-cause-refused");
        for (String body : List.of("{\"note\":\"x\",\"rootCause\":\"COSMIC_RAYS\"}", "{\"note\":\"x\",\"rootCause\":\"\"}")) {
            Response refused = operator.post("api/dead-letters/" + id + "/resolve", body);
            assertEquals(400, refused.status(), refused.body());
            assertEquals("application/problem+json", refused.contentType());
            assertTrue(refused.json().getString("detail").contains("CODE_DEFECT, BAD_DATA, DEPENDENCY, CONFIGURATION, OTHER"), refused.body());
        }
        assertEquals(400, operator.post("api/dead-letters/" + id + "/resolve", "{\"note\":\"x\",\"rootCause\":42}").status());
        assertEquals(400, operator.post("api/dead-letters/" + id + "/resolve", "{\"note\":\"x\",\"cause\":\"OTHER\"}").status());
        assertEquals(403, viewer.post("api/dead-letters/" + id + "/resolve", "{\"note\":\"x\",\"rootCause\":\"OTHER\"}").status());
        JsonObject still = deadLetter(id);
        assertEquals("PENDING", still.getString("status"));
        assertNull(still.get("rootCause"));
    }

    @Test
    void theDeadLetterPageResolvesWithARootCauseAndShowsIt() {
        long id = parseRefusal("root-cause-page");
        AdminPage page = new AdminPage(base);
        page.signIn("operator", "operator-pw");
        page.open("admin/dead-letter.xhtml?id=" + id);
        AdminPage.Answer answer = page.submit("actions", Map.of("actions:note", "asked the sender for a PDF",
                "actions:rootCause", "BAD_DATA", "actions:resolve", "Resolve"));
        assertEquals(200, answer.status());
        assertTrue(answer.body().contains("Resolved; root cause BAD_DATA."), answer.body());
        assertEquals("BAD_DATA", deadLetter(id).getString("rootCause"));
        String html = page.open("admin/dead-letter.xhtml?id=" + id).body();
        assertTrue(html.contains("id=\"root-cause\"><code>BAD_DATA</code> Bad data"), html);
    }

    @Test
    void aBulkResolveRecordsItsRootCauseWithEachDeadLetterAndOnlyAResolveTakesOne() {
        String marker = "bulk-rc-" + UUID.randomUUID().toString().substring(0, 8);
        List<Long> ids = markedDeadLetters(marker, 2);
        String filter = "{\"error\":\"" + marker + "\"}";
        Response discard = operator.post("api/bulk-jobs", "{\"action\":\"discard\",\"filter\":" + filter
                + ",\"note\":\"x\",\"rootCause\":\"OTHER\"}");
        assertEquals(400, discard.status(), discard.body());
        Response unknown = operator.post("api/bulk-jobs", "{\"action\":\"resolve\",\"filter\":" + filter
                + ",\"note\":\"x\",\"rootCause\":\"SUNSPOTS\"}");
        assertEquals(400, unknown.status(), unknown.body());
        assertTrue(unknown.json().getString("detail").contains("DEPENDENCY"), unknown.body());
        ids.forEach(id -> assertEquals("PENDING", deadLetter(id).getString("status"), "a refused job closes nothing"));

        Response started = operator.post("api/bulk-jobs", "{\"action\":\"resolve\",\"filter\":" + filter
                + ",\"note\":\"the sender fixed the files\",\"rootCause\":\"BAD_DATA\"}");
        assertEquals(202, started.status(), started.body());
        assertEquals("BAD_DATA", started.json().getString("rootCause"));
        String path = started.location().substring(started.location().indexOf("api/"));
        Await.until("the bulk resolve to finish", Duration.ofSeconds(60), () -> viewer.get(path).ok().json(),
                job -> "COMPLETED".equals(job.getString("state")));
        for (long id : ids) {
            JsonObject resolved = deadLetter(id);
            assertEquals("RESOLVED_MANUALLY", resolved.getString("status"));
            assertEquals("BAD_DATA", resolved.getString("rootCause"));
        }

        // the dead-letter list's bulk panel: the same, chosen from the page
        String onPage = "bulk-rc-page-" + UUID.randomUUID().toString().substring(0, 8);
        long fromPage = markedDeadLetters(onPage, 1).get(0);
        AdminPage page = new AdminPage(base);
        page.signIn("operator", "operator-pw");
        page.open("admin/dead-letters.xhtml?error=" + onPage);
        AdminPage.Answer answer = page.submit("bulk", Map.of("bulk:rate", "0", "bulk:note", "the configuration was wrong",
                "bulk:rootCause", "CONFIGURATION", "bulk:resolveAll", "Resolve all 1"));
        assertEquals(200, answer.status(), answer.body());
        Await.until("the page's bulk resolve", Duration.ofSeconds(60), () -> deadLetter(fromPage),
                d -> "RESOLVED_MANUALLY".equals(d.getString("status")));
        assertEquals("CONFIGURATION", deadLetter(fromPage).getString("rootCause"));
    }
}
