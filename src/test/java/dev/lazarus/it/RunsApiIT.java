package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.it.Api.Response;
import jakarta.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Starting runs over HTTP: created with a Location, retried safely with an Idempotency-Key, and every bad request refused with a problem, storing nothing. */
class RunsApiIT extends LazarusIT {

    @Test
    void aRunsHistoryTellsEachDispatchWhereItCameFromAndHowItEnded() {
        String id = operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"until-requeued\"}}}");
        long deadLetterId = awaitRun(id, "DEAD_LETTERED").getJsonObject("deadLetter").getInt("id");
        operator.post("api/dead-letters/" + deadLetterId + "/requeue", "").ok();
        JsonObject run = awaitRun(id, "COMPLETED");

        JsonObject history = viewer.get("api/runs/" + id + "/history").ok().json();
        assertEquals(run.getString("traceId"), history.getString("traceId"));
        assertEquals("COMPLETED", history.getJsonObject("run").getString("state"));
        List<JsonObject> dispatches = history.getJsonArray("dispatches").getValuesAs(JsonObject.class);
        assertEquals(List.of("fetch", "parse", "parse", "index"), dispatches.stream().map(d -> d.getString("step")).toList());
        assertEquals("submitted", dispatches.get(0).getString("origin"));
        assertEquals("after step fetch completed", dispatches.get(1).getString("origin"));
        assertEquals("FAILED", dispatches.get(1).getString("state"));
        assertEquals(deadLetterId, dispatches.get(1).getJsonNumber("deadLetterId").longValue(), "the dispatch names its dead letter");
        assertTrue(dispatches.get(2).getString("origin").startsWith("requeued by operator ("), dispatches.get(2).getString("origin"));
        assertEquals("COMPLETED", dispatches.get(2).getString("state"));
        assertEquals("after step parse completed", dispatches.get(3).getString("origin"));
        assertTrue(dispatches.get(3).containsKey("tookMillis"), "each dispatch says how long it took");
        assertEquals(1, history.getJsonArray("deadLetters").size());
        assertEquals("REQUEUED", history.getJsonArray("deadLetters").getJsonObject(0).getString("status"));
        List<String> kinds = history.getJsonArray("timeline").getValuesAs(JsonObject.class).stream().map(e -> e.getString("kind")).toList();
        assertEquals("STARTED", kinds.get(0));
        assertEquals("COMPLETED", kinds.get(kinds.size() - 1));
        assertTrue(kinds.containsAll(List.of("DEAD_LETTER", "DEAD_LETTER_REQUEUED", "STEP_FAILED")), kinds.toString());

        assertEquals(404, viewer.get("api/runs/" + UUID.randomUUID() + "/history").status());
        assertEquals(404, viewer.get("api/runs/not-a-run/history").status());
        assertEquals(401, anonymous.get("api/runs/" + id + "/history").status());
    }

    @Test
    void startedRunAnswers201WithItsLocation() {
        Response created = operator.post("api/runs", "{\"pipeline\":\"document-ingestion\",\"payload\":{\"url\":\"u\"}}");
        assertEquals(201, created.status());
        String id = created.json().getString("id");
        assertTrue(created.location().endsWith("/api/runs/" + id), created.location());
        assertEquals("document-ingestion", viewer.get("api/runs/" + id).ok().json().getString("pipeline"));
    }

    @Test
    void aRetriedSubmissionWithItsIdempotencyKeyFindsTheRunTheFirstOneStarted() {
        String key = UUID.randomUUID().toString();
        String body = "{\"pipeline\":\"document-ingestion\",\"payload\":{\"url\":\"retried\"}}";
        Response first = operator.post("api/runs", body, "Idempotency-Key", key);
        assertEquals(201, first.status(), first.body());
        long count = runCount();

        Response retry = operator.post("api/runs", body, "Idempotency-Key", key);
        assertEquals(200, retry.status(), retry.body());
        assertEquals(first.json().getString("id"), retry.json().getString("id"));
        assertEquals(first.location(), retry.location());
        assertEquals(count, runCount(), "a retry starts no second run");

        Response reordered = operator.post("api/runs", "{\"payload\":{\"url\":\"retried\"},\"pipeline\":\"document-ingestion\"}",
                "Idempotency-Key", key);
        assertEquals(200, reordered.status(), "the same request with its members in another order is the same request: " + reordered);

        assertRefused(() -> operator.post("api/runs", body.replace("retried", "another document"), "Idempotency-Key", key),
                422, "different request");
    }

    @Test
    void submissionsRacingWithOneIdempotencyKeyStartOneRun() throws Exception {
        String key = UUID.randomUUID().toString();
        String body = "{\"pipeline\":\"document-ingestion\",\"payload\":{\"url\":\"raced\"}}";
        long before = runCount();
        ExecutorService clients = Executors.newFixedThreadPool(8);
        try {
            List<Future<Response>> answers = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                answers.add(clients.submit(() -> operator.post("api/runs", body, "Idempotency-Key", key)));
            }
            Set<String> runs = new HashSet<>();
            int created = 0;
            for (Future<Response> answer : answers) {
                Response response = answer.get();
                assertTrue(response.status() == 201 || response.status() == 200, response.toString());
                created += response.status() == 201 ? 1 : 0;
                runs.add(response.json().getString("id"));
            }
            assertEquals(1, created, "exactly one submission created the run");
            assertEquals(1, runs.size(), "every submission answered with that run: " + runs);
            assertEquals(before + 1, runCount());
        } finally {
            clients.shutdownNow();
        }
    }

    @Test
    void anIdempotencyKeyThatIsNoKeyIsRefused() {
        assertRefused(() -> operator.post("api/runs", "{\"pipeline\":\"document-ingestion\"}", "Idempotency-Key", "x".repeat(201)),
                400, "Idempotency-Key");
        assertRefused(() -> operator.post("api/runs", "{\"pipeline\":\"document-ingestion\"}", "Idempotency-Key", "two words"),
                400, "Idempotency-Key");
    }

    @Test
    void malformedJsonIsRefusedWithAProblemAndStoresNothing() {
        assertRefused(() -> operator.post("api/runs", "{\"pipeline\": \"document-ingestion\", "), 400, "not valid JSON");
    }

    @Test
    void unknownPipelineIsRefusedWithAProblemAndStoresNothing() {
        assertRefused(() -> operator.post("api/runs", "{\"pipeline\":\"no-such-pipeline\",\"payload\":{}}"), 422, "no-such-pipeline");
    }

    @Test
    void oversizedPayloadIsRefusedWithAProblemAndStoresNothing() {
        String big = "x".repeat(70_000);
        assertRefused(() -> operator.post("api/runs", "{\"pipeline\":\"document-ingestion\",\"payload\":{\"content\":\"" + big + "\"}}"),
                413, "65536");
    }

    @Test
    void aBodyOverTheServersOwnLimitIsRefusedWithAProblemBeforeItIsRead() {
        assertRefused(() -> operator.postDeclaringLength("api/runs", "application/json", 12L * 1024 * 1024), 413,
                "lazarus.http.max-request-bytes");
    }

    @Test
    void aBodyThatIsNotUtf8IsRefusedNotStoredWithReplacementCharacters() {
        byte[] head = "{\"pipeline\":\"document-ingestion\",\"payload\":{\"url\":\"".getBytes(StandardCharsets.UTF_8);
        byte[] tail = "\"}}".getBytes(StandardCharsets.UTF_8);
        byte[] body = new byte[head.length + 2 + tail.length];
        System.arraycopy(head, 0, body, 0, head.length);
        body[head.length] = (byte) 0xC3;
        body[head.length + 1] = (byte) 0x28; // not a continuation byte: invalid UTF-8
        System.arraycopy(tail, 0, body, head.length + 2, tail.length);
        assertRefused(() -> operator.postBytes("api/runs", "application/json", body), 400, "UTF-8");
    }

    @Test
    void jsonNestedDeeperThanTheParserAllowsIsABadRequestNotAServerError() {
        assertRefused(() -> operator.post("api/runs", "{\"pipeline\":\"document-ingestion\",\"payload\":{\"a\":"
                + "[".repeat(20_000) + "]".repeat(20_000) + "}}"), 400, "nested");
    }

    @Test
    void aPayloadNestedDeeperThanAStepCouldHandleIsRefused() {
        assertRefused(() -> operator.post("api/runs", "{\"pipeline\":\"document-ingestion\",\"payload\":{\"a\":"
                + "[".repeat(150) + "]".repeat(150) + "}}"), 400, "nests deeper than 100");
    }

    @Test
    void payloadThatIsNotAnObjectIsRefused() {
        assertRefused(() -> operator.post("api/runs", "{\"pipeline\":\"document-ingestion\",\"payload\":[1]}"), 400, "payload");
    }

    @Test
    void unknownRunIsAProblemNotAnError() {
        Response missing = viewer.get("api/runs/00000000-0000-0000-0000-000000000000");
        assertEquals(404, missing.status());
        assertEquals("application/problem+json", missing.contentType());
    }

    @Test
    void viewerMayReadButNotStartRunsAndAnonymousMayDoNeither() {
        assertEquals(200, viewer.get("api/runs").status());
        Response forbidden = viewer.post("api/runs", "{\"pipeline\":\"document-ingestion\"}");
        assertEquals(403, forbidden.status());
        assertEquals("application/problem+json", forbidden.contentType());

        long before = runCount();
        for (Response refused : List.of(anonymous.get("api/runs"), anonymous.post("api/runs", "{\"pipeline\":\"document-ingestion\"}"),
                new Api(base, "operator", "not-the-password").get("api/runs"))) {
            assertEquals(401, refused.status(), refused.body());
            assertEquals("application/problem+json", refused.contentType());
            assertTrue(refused.wwwAuthenticate().startsWith("Basic"), "a Basic challenge, not a login page");
        }
        assertEquals(before, runCount());
    }

    @Test
    void actionsMustBeJsonSoNoCrossSiteFormCanPostThem() {
        long before = runCount();
        Response form = operator.postAs("api/runs", "text/plain", "{\"pipeline\":\"document-ingestion\"}");
        assertEquals(415, form.status());
        assertEquals(before, runCount());
    }

    @Test
    void theServerServesAnOpenApiDocumentOfEveryEndpoint() {
        Api root = new Api(rootOf(base), null, null);
        Response document = root.get("openapi?format=JSON");
        assertEquals(200, document.status());
        for (String path : List.of("/runs", "/runs/{id}", "/dead-letters/{id}/requeue", "/dead-letters/{id}/discard",
                "/dead-letters/stats", "/dead-letters/investigation-queue", "/staleness")) {
            assertTrue(document.body().contains(path + "\""), "the document describes " + path);
        }
    }

    private static java.net.URL rootOf(java.net.URL base) {
        try {
            return new java.net.URL(base.getProtocol(), base.getHost(), base.getPort(), "/");
        } catch (java.net.MalformedURLException e) {
            throw new IllegalStateException(e);
        }
    }
}
