package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The demo's fetch step calls a remote service, the stand-in document service the test stack runs: what it serves
 * is what the run carries on, an outage of it (a refused connection) is retried like any bad moment of a remote
 * server, and a document it does not have is not.
 */
class DocumentServiceIT extends LazarusIT {

    private final DocumentService documents = new DocumentService();

    @AfterEach
    void theServiceRunsForTheOtherTests() {
        documents.start();
    }

    @Test
    void theFetchStepCarriesOnWhatTheDocumentServiceServed() {
        String url = "https://example.org/served.html";
        String id = operator.startRun("{\"url\":\"" + url + "\"}");
        JsonObject run = awaitRun(id, "COMPLETED");

        JsonObject payload = run.getJsonObject("payload");
        String served = documents.document(url);
        assertEquals(served, payload.getString("content"), "the document as the service served it");
        assertEquals(served.getBytes(StandardCharsets.UTF_8).length, payload.getInt("fetchedBytes"));
        assertEquals(url, payload.getString("title"), "parse read the title the service wrote");
        assertEquals(1, executions(run, "fetch").get(0).getInt("attempts"));
    }

    @Test
    void withTheServiceDownTheFetchIsRetriedAndTheRunCompletesOnceTheServiceIsBack() {
        String id;
        JsonObject failing;
        documents.stop();
        try {
            id = operator.startRun("{\"url\":\"https://example.org/during-the-outage.html\"}");
            // fetch backs off 0.5 s, then 1 s, then 2 s before its 4th and last attempt: seen waiting for its 3rd, the
            // service has 2 s to come back in
            failing = Await.until("fetch to fail a second time, with a refused connection, and wait to be tried again",
                    Duration.ofSeconds(30), () -> executions(viewer.run(id), "fetch"),
                    fetch -> !fetch.isEmpty() && fetch.get(0).getInt("attempts") >= 2 && "RETRYING".equals(fetch.get(0).getString("state"))
                            && lastError(fetch.get(0)).contains("refused")).get(0);
        } finally {
            documents.start();
        }
        assertTrue(lastError(failing).startsWith("java.io.UncheckedIOException: "), lastError(failing));

        JsonObject run = Await.until("the run to end", Duration.ofSeconds(60), () -> viewer.run(id),
                r -> List.of("COMPLETED", "DEAD_LETTERED").contains(r.getString("state")));
        JsonObject fetch = executions(run, "fetch").get(0);
        assertEquals("COMPLETED", run.getString("state"), "once the service is back the run completes: " + fetch);
        assertTrue(fetch.getInt("attempts") >= 2, "fetch was tried again: " + fetch);
        assertEquals(documents.document("https://example.org/during-the-outage.html"), run.getJsonObject("payload").getString("content"));
        assertEquals(0, viewer.get("api/dead-letters?runId=" + id).ok().json().getInt("total"), "no dead letter");
    }

    @Test
    void aDocumentTheServiceDoesNotHaveIsAPermanentFailureOnTheFirstAttempt() {
        String id = operator.startRun("{\"url\":\"https://example.org/missing/report.html\"}");
        JsonObject run = awaitRun(id, "DEAD_LETTERED");

        JsonObject deadLetter = run.getJsonObject("deadLetter");
        assertEquals("NON_RETRYABLE", deadLetter.getString("reason"));
        assertEquals("fetch", deadLetter.getString("step"));
        assertEquals(1, deadLetter.getInt("attempts"), "retrying cannot bring a document into being");
        assertTrue(deadLetter.getString("errorMessage").contains("404"), deadLetter.getString("errorMessage"));
    }

    private static String lastError(JsonObject step) {
        return step.get("lastError") instanceof JsonString error ? error.getString() : "";
    }
}
