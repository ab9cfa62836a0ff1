package dev.lazarus.demo.receiver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.lazarus.webhooks.control.Signatures;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The receiver against a stand-in of the webhooks API: how it registers and deletes its webhook, and what it answers
 * and prints for each request.
 */
class WebhookReceiverTest {

    private static final String SECRET = "a-secret-of-16-chars-for-the-test";
    private static final long NOW = 1_760_000_000L;
    private static final String SUMMARY = """
            {"schema":"lazarus.event-summary/v1","type":"dead-lettered","count":30,"first":"2025-10-09T08:53:00Z",\
            "last":"2025-10-09T08:53:04Z","pipeline":"document-ingestion","step":"parse","reason":"NON_RETRYABLE",\
            "cause":{"fingerprint":"3f2a","exceptionClass":"dev.lazarus.pipeline.control.PermanentStepFailure",\
            "message":"simulated permanent failure in parse:\\nthe document is not in a supported format"},"who":"consumer",\
            "sampleRunIds":["6c1c6a4e-0000-4000-8000-000000000001"],"firstEvent":{}}""";

    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private final HttpClient http = HttpClient.newHttpClient();
    private WebhookReceiver receiver = receiver(URI.create("http://127.0.0.1:1/lazarus/"), Duration.ofSeconds(1));

    /** A stand-in of the webhooks API: the requests it got, and its answer to each method. */
    private HttpServer lazarus;
    private final List<String> calls = new CopyOnWriteArrayList<>();
    private final Map<String, Integer> answers = new ConcurrentHashMap<>(Map.of("POST", 201, "PUT", 200, "DELETE", 204));

    private WebhookReceiver receiver(URI lazarus, Duration timeout) {
        return new WebhookReceiver(new ReceiverSettings(0, SECRET, lazarus, "operator", "operator-pw", "demo-receiver",
                List.of("dead-lettered"), 1, timeout),
                new PrintStream(printed, true, StandardCharsets.UTF_8), Clock.fixed(Instant.ofEpochSecond(NOW), ZoneOffset.UTC));
    }

    private URI lazarus() throws Exception {
        lazarus = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        lazarus.createContext("/lazarus/api/webhooks", exchange -> {
            try (exchange) {
                String credentials = new String(Base64.getDecoder().decode(exchange.getRequestHeaders().getFirst("Authorization")
                        .substring("Basic ".length())), StandardCharsets.UTF_8);
                calls.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath() + " " + credentials + " "
                        + new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
                // as the server does: an action without Content-Type: application/json is refused (a DELETE too)
                boolean json = "application/json".equals(exchange.getRequestHeaders().getFirst("Content-Type"));
                exchange.sendResponseHeaders(json ? answers.get(exchange.getRequestMethod()) : 415, -1);
            }
        });
        lazarus.start();
        return URI.create("http://127.0.0.1:" + lazarus.getAddress().getPort() + "/lazarus/");
    }

    @AfterEach
    void stop() {
        receiver.close();
        if (lazarus != null) {
            lazarus.stop(0);
        }
    }

    private int post(int port, String body, String signature) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + WebhookReceiver.PATH))
                .header("Content-Type", "application/json")
                .header("X-Lazarus-Event", "dead-lettered")
                .header("X-Lazarus-Delivery", "9d7e1c2a-0000-4000-8000-000000000009")
                .header("X-Lazarus-Timestamp", Long.toString(NOW))
                .header("X-Lazarus-Signature", signature)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private List<String> lines() {
        return printed.toString(StandardCharsets.UTF_8).lines().filter(line -> !line.startsWith("[receiver]")).toList();
    }

    @Test
    void aSignedSummaryIsAnswered204AndPrintedOnOneLine() throws Exception {
        int port = receiver.start();
        assertEquals(204, post(port, SUMMARY, Signatures.sign(SECRET, NOW, SUMMARY)));
        assertEquals(List.of("2025-10-09T08:53:20Z  dead-lettered  verified  type=dead-lettered count=30 pipeline=document-ingestion"
                + " step=parse reason=NON_RETRYABLE cause=\"PermanentStepFailure: simulated permanent failure in parse: the document is"
                + " not in a supported format\" who=consumer  delivery=9d7e1c2a-0000-4000-8000-000000000009"), lines());
    }

    @Test
    void aRetryOfTheSameDeliveryIsSaidToBeOne() throws Exception {
        int port = receiver.start();
        assertEquals(204, post(port, SUMMARY, Signatures.sign(SECRET, NOW, SUMMARY)));
        assertEquals(204, post(port, SUMMARY, Signatures.sign(SECRET, NOW, SUMMARY)));
        assertTrue(lines().get(1).contains("(again: a retry of a delivery already received)"), lines().toString());
    }

    @Test
    void aBadSignatureIsAnswered401AndNothingOfItsBodyIsShown() throws Exception {
        int port = receiver.start();
        String forged = SUMMARY.replace("\"count\":30", "\"count\":1");
        assertEquals(401, post(port, forged, Signatures.sign(SECRET, NOW, SUMMARY)));
        assertEquals(1, lines().size(), lines().toString());
        assertTrue(lines().get(0).contains("dead-lettered  REJECTED (signature does not match"), lines().toString());
        assertFalse(lines().get(0).contains("count="), lines().toString());
    }

    @Test
    void onlyPostsAreTaken() throws Exception {
        int port = receiver.start();
        assertEquals(405, http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + WebhookReceiver.PATH)).GET().build(),
                HttpResponse.BodyHandlers.discarding()).statusCode());
    }

    @Test
    void itRegistersItselfWaitsForTheCountAndDeletesItsWebhookWhenClosed() throws Exception {
        receiver = receiver(lazarus(), Duration.ofSeconds(30));
        receiver.open();
        String registration = "{\"url\":\"" + receiver.hookUrl() + "\",\"secret\":\"" + SECRET
                + "\",\"types\":[\"dead-lettered\"],\"enabled\":true";
        assertEquals(List.of("POST /lazarus/api/webhooks operator:operator-pw " + registration + ",\"name\":\"demo-receiver\"}"), calls);
        int port = URI.create(receiver.hookUrl()).getPort();
        assertEquals(204, post(port, SUMMARY, Signatures.sign(SECRET, NOW, SUMMARY)));
        assertEquals(0, receiver.await(), "the count reached");
        receiver.close();
        assertEquals("DELETE /lazarus/api/webhooks/demo-receiver operator:operator-pw ", calls.get(calls.size() - 1));
    }

    @Test
    void aWebhookOfItsNameLeftBehindIsReplaced() throws Exception {
        answers.put("POST", 409);
        receiver = receiver(lazarus(), Duration.ofSeconds(30));
        receiver.open();
        assertEquals(2, calls.size(), calls.toString());
        assertTrue(calls.get(1).startsWith("PUT /lazarus/api/webhooks/demo-receiver operator:operator-pw {\"url\":"), calls.toString());
        assertFalse(calls.get(1).contains("\"name\""), "the name is in the path: " + calls);
    }

    @Test
    void aRefusedRegistrationStopsItWithTheReason() throws Exception {
        answers.put("POST", 403);
        receiver = receiver(lazarus(), Duration.ofSeconds(30));
        IllegalStateException refused = assertThrows(IllegalStateException.class, receiver::open);
        assertTrue(refused.getMessage().contains("operator role"), refused.getMessage());
        receiver.close();
        assertEquals(1, calls.size(), "nothing registered, nothing to delete: " + calls);
    }

    @Test
    void theTimeoutEndsTheWaitWithOne() throws Exception {
        receiver = receiver(lazarus(), Duration.ofMillis(200));
        receiver.open();
        assertEquals(1, receiver.await());
    }

    @Test
    void aSingleEventShowsItsRun() {
        String event = "{\"schema\":\"lazarus.event/v1\",\"id\":7,\"type\":\"requeued\",\"runId\":\"r-1\",\"pipeline\":\"p\",\"step\":\"s\","
                + "\"who\":\"operator\"}";
        assertEquals("type=requeued count=1 pipeline=p step=s who=operator run=r-1",
                WebhookReceiver.describe(event.getBytes(StandardCharsets.UTF_8)));
    }
}
