package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.it.Api.Response;
import jakarta.json.JsonObject;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Every text a client sends has one limit, stated in the reference's limits table (src/site/markdown/reference.md) and enforced where it
 * enters: past it, or with a character the database cannot store, the answer is a 400 (or 413) problem that names
 * the field and its limit, and nothing is stored. Long or odd input is ordinary input; it never gets a 500.
 */
class InputLimitsIT extends LazarusIT {

    private static final String NUL = "\u0000";

    private long deadLetterOfAPoisonRun() {
        String id = operator.startRun("{\"failures\":{\"index\":{\"mode\":\"permanent\"}}}");
        return awaitRun(id, "DEAD_LETTERED").getJsonObject("deadLetter").getInt("id");
    }

    /** {@code body} is refused with {@code status}, naming what {@code mentions} says; the dead letter is unchanged. */
    private void assertRefusedAndUnchanged(long deadLetter, String action, String body, int status, String... mentions) {
        JsonObject before = viewer.get("api/dead-letters/" + deadLetter).ok().json();
        Response answer = operator.post("api/dead-letters/" + deadLetter + "/" + action, body);
        assertEquals(status, answer.status(), action + ": " + brief(answer));
        assertEquals("application/problem+json", answer.contentType(), action);
        for (String mention : mentions) {
            assertTrue(answer.json().getString("detail").contains(mention), action + ": " + answer.json().getString("detail"));
        }
        JsonObject after = viewer.get("api/dead-letters/" + deadLetter).ok().json();
        assertEquals(before.getString("status"), after.getString("status"), action + " stored nothing");
        assertEquals(before.getJsonArray("history").size(), after.getJsonArray("history").size(), action + " stored nothing");
        assertEquals(before.getString("runId"), after.getString("runId"));
    }

    private static String note(String text) {
        return "{\"note\":\"" + text + "\"}";
    }

    @Test
    void aNoteOverItsLimitIsRefusedNamingTheFieldAndTheLimitByEveryActionThatTakesOne() {
        long id = deadLetterOfAPoisonRun();
        String tooLong = "n".repeat(4001);
        for (String action : List.of("investigate", "notes", "resolve", "discard", "skip-step")) {
            assertRefusedAndUnchanged(id, action, note(tooLong), 400, "'note'", "4000");
        }
        assertRefusedAndUnchanged(id, "requeue", "{\"payload\":{\"url\":\"https://example.org/x\"},\"note\":\"" + tooLong + "\"}",
                400, "'note'", "4000");
        assertRefusedAndUnchanged(id, "complete-step", "{\"output\":{\"done\":true},\"note\":\"" + tooLong + "\"}",
                400, "'note'", "4000");
        // exactly at the limit is accepted
        operator.post("api/dead-letters/" + id + "/notes", note("n".repeat(4000))).ok();
    }

    @Test
    void aControlCharacterInANoteIsRefusedButLineBreaksAndTabsAreText() {
        long id = deadLetterOfAPoisonRun();
        for (String action : List.of("investigate", "notes", "resolve", "discard")) {
            assertRefusedAndUnchanged(id, action, note("before\\u0000after"), 400, "'note'", "control character");
            assertRefusedAndUnchanged(id, action, note("bell\\u0007"), 400, "'note'");
        }
        operator.post("api/dead-letters/" + id + "/notes", note("line one\\nline two\\tand a tab")).ok();
    }

    @Test
    void anEditedPayloadNestedDeeperThanASubmissionMayIsRefusedAndTheRunStaysReadable() {
        long id = deadLetterOfAPoisonRun();
        String runId = viewer.get("api/dead-letters/" + id).ok().json().getString("runId");
        String deep = "{\"a\":".repeat(995) + "1" + "}".repeat(995);

        assertRefusedAndUnchanged(id, "requeue", "{\"payload\":" + deep + ",\"note\":\"deep\"}", 400, "'payload'", "100");
        assertRefusedAndUnchanged(id, "complete-step", "{\"output\":" + deep + ",\"note\":\"deep\"}", 400, "'output'", "100");
        // the same rule as a submission's, at the same depth
        String justTooDeep = "{\"a\":".repeat(101) + "1" + "}".repeat(101);
        assertRefusedAndUnchanged(id, "requeue", "{\"payload\":" + justTooDeep + ",\"note\":\"deep\"}", 400, "'payload'", "100");
        assertRefused(() -> operator.post("api/runs", "{\"pipeline\":\"document-ingestion\",\"payload\":" + justTooDeep + "}"),
                400, "100");

        assertEquals(200, viewer.get("api/runs/" + runId).status());
        assertEquals(200, viewer.get("api/runs/" + runId + "/history").status());
        assertEquals(200, viewer.get("api/dead-letters/" + id).status());
    }

    @Test
    void aListRefusesAParameterItDoesNotTakeOrOneGivenTwiceAndQuotesNoControlThatReordersText() {
        for (String list : List.of("api/requeue-jobs", "api/bulk-jobs")) {
            assertRefused(() -> viewer.get(list + "?bogus=1"), 400, "bogus");
            assertRefused(() -> viewer.get(list + "?limit=abc"), 400, "limit");
            viewer.get(list).ok();
        }
        String a = UUID.randomUUID().toString();
        String b = UUID.randomUUID().toString();
        for (String query : List.of("api/dead-letters?runId=" + a + "&runId=" + b, "api/runs?state=PENDING&state=COMPLETED",
                "api/requeue-jobs/dry-run?runId=" + a + "&runId=" + b, "api/bulk-jobs/dry-run?action=discard&runId=" + a + "&runId=" + b)) {
            assertRefused(() -> viewer.get(query), 400, "more than once");
        }
        Api.Response refused = viewer.get("api/runs?state=%E2%80%AEDETELPMOC");
        assertEquals(400, refused.status(), refused.body());
        assertFalse(refused.body().contains("\u202E"), "the refusal quotes a control that turns the text around it: " + refused.body());
        assertTrue(refused.body().contains("\\u202E"), refused.body());
    }

    @Test
    void aFilterValueLongerThanItsColumnIsRefusedByTheListsTheDryRunAndABulkRequeue() {
        String longName = "p".repeat(101);
        long jobsBefore = viewer.get("api/requeue-jobs").ok().body().split("\"id\"").length;

        Response job = operator.post("api/requeue-jobs", "{\"filter\":{\"pipeline\":\"" + longName + "\"},\"ratePerSecond\":0}");
        assertProblem(job, 400, "'pipeline'", "100");
        job = operator.post("api/requeue-jobs", "{\"filter\":{\"step\":\"" + longName + "\"},\"ratePerSecond\":0}");
        assertProblem(job, 400, "'step'", "100");
        assertEquals(jobsBefore, viewer.get("api/requeue-jobs").ok().body().split("\"id\"").length, "no job was started");

        for (String path : List.of("api/dead-letters", "api/dead-letters/causes", "api/requeue-jobs/dry-run",
                "api/dead-letters/investigation-queue", "api/runs", "api/staleness")) {
            assertProblem(viewer.get(path + "?pipeline=" + longName), 400, "'pipeline'", "100");
        }
    }

    @Test
    void aControlCharacterInAFilterValueIsRefusedNamingTheField() {
        Map<String, List<String>> filters = Map.of(
                "api/dead-letters", List.of("error", "pipeline", "step"),
                "api/dead-letters/causes", List.of("error", "pipeline", "step"),
                "api/requeue-jobs/dry-run", List.of("error", "pipeline", "step"),
                "api/runs", List.of("pipeline"),
                "api/staleness", List.of("pipeline"));
        filters.forEach((path, names) -> names.forEach(name -> {
            for (String character : List.of(NUL, "\u0001", "\u001b", "\u007f")) {
                Response answer = viewer.get(path + "?" + name + "=" + URLEncoder.encode("a" + character + "b", StandardCharsets.UTF_8));
                assertProblem(answer, 400, "'" + name + "'", "control character");
            }
        }));
        Response job = operator.post("api/requeue-jobs", "{\"filter\":{\"error\":\"a\\u0000b\"},\"ratePerSecond\":0}");
        assertProblem(job, 400, "'error'", "control character");
    }

    @Test
    void aBulkJobsNoteActionOrFilterOverItsLimitIsRefusedNamingTheFieldAndStartsNoJob() {
        long jobsBefore = viewer.get("api/bulk-jobs").ok().body().split("\"id\"").length;
        String nothing = "\"filter\":{\"error\":\"matches no dead letter " + UUID.randomUUID() + "\"}";
        assertProblem(operator.post("api/bulk-jobs", "{\"action\":\"discard\"," + nothing + ",\"note\":\"" + "n".repeat(4001) + "\"}"),
                400, "'note'", "4000");
        assertProblem(operator.post("api/bulk-jobs", "{\"action\":\"resolve\"," + nothing + ",\"note\":\"a\\u0007b\"}"),
                400, "'note'", "control character");
        assertProblem(operator.post("api/bulk-jobs", "{\"action\":\"discard\"," + nothing + ",\"note\":\"\\ud800\"}"),
                400, "'note'", "surrogate");
        assertProblem(operator.post("api/bulk-jobs", "{\"action\":\"" + "x".repeat(10_000) + "\"," + nothing + ",\"note\":\"why\"}"),
                400, "'action'");
        assertProblem(operator.post("api/bulk-jobs", "{\"action\":\"discard\",\"filter\":{\"pipeline\":\"" + "p".repeat(101)
                + "\"},\"note\":\"why\"}"), 400, "'pipeline'", "100");
        assertProblem(operator.post("api/bulk-jobs", "{\"action\":\"discard\",\"filter\":{\"error\":\"a\\u0000b\"},\"note\":\"why\"}"),
                400, "'error'", "control character");
        assertEquals(jobsBefore, viewer.get("api/bulk-jobs").ok().body().split("\"id\"").length, "no job was started");

        assertProblem(viewer.get("api/bulk-jobs/dry-run?action=discard&error=" + "e".repeat(201)), 400, "'error'", "200");
        assertProblem(viewer.get("api/bulk-jobs/dry-run?action=discard&pipeline=" + URLEncoder.encode("a\u001bb", StandardCharsets.UTF_8)),
                400, "'pipeline'", "control character");
        assertProblem(viewer.get("api/bulk-jobs/dry-run?action=" + "x".repeat(1000)), 400, "'action'");
    }

    @Test
    void theRunListPageTellsOfAStateThatIsNoneInsteadOfFailing() {
        AdminPage page = new AdminPage(base);
        page.signIn("viewer", "viewer-pw");
        AdminPage.Answer answer = page.open("admin/runs.xhtml?state=BOGUS");
        assertEquals(200, answer.status(), answer.body());
        assertTrue(answer.body().contains("state must be one of"), answer.body());
        answer = page.open("admin/runs.xhtml?state=" + URLEncoder.encode("a\u0000", StandardCharsets.UTF_8));
        assertEquals(200, answer.status(), answer.body());
        answer = page.open("admin/dead-letters.xhtml?pipeline=" + URLEncoder.encode("a\u0000b", StandardCharsets.UTF_8));
        assertEquals(200, answer.status(), answer.body());
        assertTrue(answer.body().contains("control character"), answer.body());
        answer = page.open("admin/dead-letters.xhtml?pipeline=" + "p".repeat(101));
        assertEquals(200, answer.status(), answer.body());
        assertTrue(answer.body().contains("100"), answer.body());
        // ids that are none: the page says there is no such thing
        for (String path : List.of("admin/dead-letter.xhtml?id=abc", "admin/dead-letter.xhtml?id=99999999999999999999",
                "admin/dead-letter.xhtml?id=-1", "admin/run.xhtml?id=" + URLEncoder.encode("x\u0000'<", StandardCharsets.UTF_8),
                "admin/requeue-job.xhtml?id=abc", "admin/requeue-job.xhtml?id=-7", "admin/dead-letter.xhtml")) {
            answer = page.open(path);
            assertEquals(200, answer.status(), path + ": " + answer.body());
        }
    }

    @Test
    void theStalenessPageTellsOfAFilterPastItsLimitsInsteadOfFailing() {
        AdminPage page = new AdminPage(base);
        page.signIn("viewer", "viewer-pw");
        Map<String, String> says = Map.of(
                "health=BOGUS", "health must be one of",
                "health=" + URLEncoder.encode("a\u0000", StandardCharsets.UTF_8), "health must be one of",
                "pipeline=" + URLEncoder.encode("a\u0000b", StandardCharsets.UTF_8), "control character",
                "pipeline=" + URLEncoder.encode("a\u001bb", StandardCharsets.UTF_8), "control character",
                "pipeline=" + "p".repeat(101), "at most 100 characters");
        says.forEach((filter, message) -> {
            AdminPage.Answer answer = page.open("admin/staleness.xhtml?" + filter);
            assertEquals(200, answer.status(), filter + ": " + answer.body());
            assertTrue(answer.body().contains("Filter ignored") && answer.body().contains(message), filter + ": " + answer.body());
        });
    }

    @Test
    void theBulkRequeueFormRefusesARateThatIsNoneAndStartsNoJob() {
        deadLetterOfAPoisonRun();
        long jobsBefore = viewer.get("api/requeue-jobs").ok().body().split("\"id\"").length;
        AdminPage page = new AdminPage(base);
        page.signIn("operator", "operator-pw");
        for (String rate : List.of("-5", "abc", "99999999999", "100001")) {
            page.open("admin/dead-letters.xhtml?status=OPEN");
            AdminPage.Answer answer = page.submit("bulk", Map.of("bulk:rate", rate, "bulk:requeueAll", "Requeue all"));
            assertEquals(200, answer.status(), rate + ": " + answer.body());
            assertTrue(answer.body().contains("100000"), rate + ": the page says what a rate may be: " + answer.body());
            assertFalse(answer.body().contains("Bulk requeue started"), rate);
        }
        assertEquals(jobsBefore, viewer.get("api/requeue-jobs").ok().body().split("\"id\"").length, "no job was started");
    }

    /** The status and the start of the body: enough to see what went wrong without pages of echoed input. */
    static String brief(Response answer) {
        String body = answer.body();
        return answer.status() + " " + answer.contentType() + " " + (body.length() > 300 ? body.substring(0, 300) + "…" : body);
    }

    @Test
    void textAtItsLimitSpeltWithJsonEscapesIsAccepted() {
        long id = deadLetterOfAPoisonRun();
        // 4 000 characters, each sent as a six-byte JSON escape (as many JSON writers do): 24 000 bytes of body
        operator.post("api/dead-letters/" + id + "/notes", note("\\u00e9".repeat(4000))).ok();
        String runId = operator.startRun("{\"text\":\"" + "\\ud83d\\ude00".repeat(16_000) + "\"}"); // 64 000 bytes of UTF-8
        assertEquals(200, viewer.get("api/runs/" + runId).status());
    }

    @Test
    void halfOfASurrogatePairInAPayloadIsRefusedNotStoredAsAQuestionMark() {
        assertRefused(() -> operator.post("api/runs", "{\"pipeline\":\"document-ingestion\",\"payload\":{\"a\":\"x\\udc00y\"}}"),
                400, "surrogate");
        assertRefused(() -> operator.post("api/runs", "{\"pipeline\":\"document-ingestion\",\"payload\":{\"\\ud800\":1}}"),
                400, "surrogate");
    }

    @Test
    void aNoteThatReordersTextOnScreenIsRefused() {
        long id = deadLetterOfAPoisonRun();
        assertRefusedAndUnchanged(id, "notes", note("pay \\u202eevil\\u202c now"), 400, "'note'", "reorders");
    }

    @Test
    void timesQueryNumbersAndNamesAListDoesNotTakeAreRefusedWithTheirName() {
        for (String path : List.of("api/dead-letters", "api/dead-letters/causes", "api/requeue-jobs/dry-run")) {
            assertProblem(viewer.get(path + "?from=" + URLEncoder.encode("+1000000000-01-01T00:00:00Z", StandardCharsets.UTF_8)), 400, "from");
            assertProblem(viewer.get(path + "?to=" + URLEncoder.encode("-999999999-01-01T00:00:00Z", StandardCharsets.UTF_8)), 400, "to");
        }
        assertProblem(operator.post("api/requeue-jobs", "{\"filter\":{\"from\":\"+300000-01-01T00:00:00Z\"}}"), 400, "from");
        for (String path : List.of("api/dead-letters", "api/runs", "api/staleness", "api/dead-letters/investigation-queue")) {
            assertProblem(viewer.get(path + "?offset=abc"), 400, "offset");
            assertProblem(viewer.get(path + "?limit=99999999999"), 400, "limit");
            assertProblem(viewer.get(path + "?offset=-1"), 400, "offset");
            assertProblem(viewer.get(path + "?pipelin=typo"), 400, "pipelin");
        }
        assertProblem(viewer.get("api/dead-letters?open=yes"), 400, "open");
        assertProblem(viewer.get("api/runs?deadLettered=maybe"), 400, "deadLettered");
        AdminPage page = new AdminPage(base);
        page.signIn("viewer", "viewer-pw");
        AdminPage.Answer answer = page.open("admin/dead-letters.xhtml?from=" + URLEncoder.encode("+1000000000-01-01T00:00:00Z", StandardCharsets.UTF_8));
        assertEquals(200, answer.status(), answer.body());
        assertTrue(answer.body().contains("must be between"), answer.body());
        answer = page.open("admin/dead-letter.xhtml?id=abc");
        assertTrue(answer.body().contains("'abc' is not a dead letter id"), answer.body());
    }

    @Test
    void anIdempotencyKeyOf200CharactersIsTaken() {
        String key = "k".repeat(200);
        Response first = operator.post("api/runs", "{\"pipeline\":\"document-ingestion\",\"payload\":{}}", "Idempotency-Key", key);
        assertEquals(201, first.status(), brief(first));
        Response again = operator.post("api/runs", "{\"pipeline\":\"document-ingestion\",\"payload\":{}}", "Idempotency-Key", key);
        assertEquals(200, again.status(), brief(again));
        assertEquals(first.json().getString("id"), again.json().getString("id"));
    }

    @Test
    void aDeadLettersViewShowsTheNewestOfALongAuditTrail() {
        long id = deadLetterOfAPoisonRun();
        for (int i = 0; i < 120; i++) {
            operator.post("api/dead-letters/" + id + "/notes", note("note " + i)).ok();
        }
        JsonObject detail = viewer.get("api/dead-letters/" + id).ok().json();
        assertEquals(100, detail.getJsonArray("history").size(), "the newest 100");
        assertEquals(121, detail.getInt("historyTotal"), "of all of them (the first is its creation)");
        assertEquals("note 119", detail.getJsonArray("history").getJsonObject(99).getString("note"), "the newest last");
    }

    @Test
    void thePayloadBoxTakesBackWhatItShowsHoweverLongItsIndentation() {
        // a small payload (some 10 KB) that the page shows indented as hundreds of kilobytes
        StringBuilder nested = new StringBuilder();
        for (int i = 0; i < 50; i++) {
            nested.append("{\"v").append(i).append("\":[").append("1,".repeat(99)).append("1],\"n\":");
        }
        nested.append("0").append("}".repeat(50));
        String runId = operator.startRun("{\"doc\":" + nested + ",\"failures\":{\"index\":{\"mode\":\"permanent\"}}}");
        long id = awaitRun(runId, "DEAD_LETTERED").getJsonObject("deadLetter").getInt("id");
        AdminPage page = new AdminPage(base);
        page.signIn("operator", "operator-pw");
        page.open("admin/dead-letter.xhtml?id=" + id);
        jakarta.json.JsonObject payload = viewer.run(runId).getJsonObject("payload");
        java.io.StringWriter pretty = new java.io.StringWriter();
        jakarta.json.Json.createWriterFactory(Map.of(jakarta.json.stream.JsonGenerator.PRETTY_PRINTING, true)).createWriter(pretty)
                .write(jakarta.json.Json.createObjectBuilder(payload).add("edited", true).build());
        assertTrue(pretty.toString().length() > 4 * 65_536, "indented, it is longer than four times the payload limit");
        AdminPage.Answer answer = page.submit("actions", Map.of("actions:note", "fixed by hand", "actions:fixPayload", pretty.toString(),
                "actions:editAndRequeue", "Save payload and requeue"));
        assertEquals(200, answer.status());
        assertTrue(answer.body().contains("Payload replaced and requeued"), answer.body());
        assertTrue(viewer.run(runId).getJsonObject("payload").getBoolean("edited"));
    }

    private static void assertProblem(Response answer, int status, String... mentions) {
        assertEquals(status, answer.status(), brief(answer));
        assertEquals("application/problem+json", answer.contentType(), brief(answer));
        String detail = answer.json().getString("detail");
        for (String mention : mentions) {
            assertTrue(detail.contains(mention), detail);
        }
    }
}
