package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.lazarus.webhooks.control.Signatures;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Events and webhooks against the real server: a burst of poison runs of one cause reaches a webhook as ONE signed
 * notification with its count; the events are on the topic lazarus.events after commit and at GET /api/events; a
 * receiver that answers 500 makes its delivery a dead letter of the pipeline webhook-delivery, in that pipeline's own
 * DLQ; the secret is never shown back; hostile inputs are refused; a viewer cannot create a webhook.
 */
class WebhooksIT extends LazarusIT {

    private static final String SECRET = "it-secret-0123456789-never-shown";
    private static final String POISON = "{\"failures\":{\"parse\":{\"mode\":\"permanent\"}}}";

    /** What the stand-in receiver got: headers and body. */
    private record Received(Map<String, List<String>> headers, String body) {
        String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name)).findFirst()
                    .map(e -> e.getValue().get(0)).orElse(null);
        }
    }

    private final List<Received> received = new CopyOnWriteArrayList<>();
    private volatile int answer = 204;
    private HttpServer receiver;
    private final List<String> created = new ArrayList<>();

    @BeforeEach
    void receiver() throws Exception {
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/hook", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            received.add(new Received(Map.copyOf(exchange.getRequestHeaders()), body));
            exchange.sendResponseHeaders(answer, -1);
            exchange.close();
        });
        receiver.start();
    }

    @AfterEach
    void cleanUp() {
        receiver.stop(0);
        // every one deleted, then checked: a webhook left behind would notify of every later class's events
        List<String> left = created.stream().map(name -> send(operator(), "DELETE", "api/webhooks/" + name, null))
                .filter(response -> response.status() != 204 && response.status() != 404).map(response -> response.status() + " " + response.body())
                .toList();
        assertTrue(left.isEmpty(), "webhooks not deleted: " + left);
    }

    private String hookUrl() {
        return "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
    }

    private Api.Response createWebhook(String name, String types) {
        Api.Response response = operator.post("api/webhooks", "{\"name\":\"" + name + "\",\"url\":\"" + hookUrl() + "\",\"secret\":\""
                + SECRET + "\",\"types\":" + types + "}");
        if (response.status() == 201) {
            created.add(name);
        }
        return response;
    }

    @Test
    void aBurstOfPoisonRunsOfOneCauseSendsOneSignedNotificationWithItsCountAndTheEventsAreOnTheTopicAndTheApi() throws Exception {
        long after = latestEventId();
        assertEquals(201, createWebhook("burst", "[\"dead-lettered\"]").status());
        ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory("tcp://127.0.0.1:" + Integer.getInteger("it.broker.port", 61716),
                "admin", "admin");
        Set<String> runs = new HashSet<>();
        List<JsonObject> onTheTopic = new CopyOnWriteArrayList<>();
        try (JMSContext jms = factory.createContext()) {
            JMSConsumer subscriber = jms.createConsumer(jms.createTopic("lazarus.events"), "lazarusEventType = 'dead-lettered'");
            for (int i = 0; i < 30; i++) {
                runs.add(operator.startRun(POISON));
            }
            Await.until("30 dead-lettered events on the topic", Duration.ofSeconds(90), () -> {
                Message message = subscriber.receive(1000);
                if (message != null) {
                    try {
                        onTheTopic.add(Json.createReader(new StringReader(((TextMessage) message).getText())).readObject());
                    } catch (jakarta.jms.JMSException e) {
                        throw new IllegalStateException(e);
                    }
                }
                return onTheTopic.stream().filter(e -> runs.contains(e.getString("runId", ""))).count();
            }, count -> count == 30);
        }
        for (String run : runs) {
            // after the commit: the dead letter the event names is there to read
            JsonObject event = onTheTopic.stream().filter(e -> run.equals(e.getString("runId", ""))).findFirst().orElseThrow();
            assertEquals("lazarus.event/v1", event.getString("schema"));
            assertEquals("NON_RETRYABLE", event.getString("reason"), event.toString());
            assertEquals(200, viewer.get("api/dead-letters/" + event.getInt("deadLetterId")).status());
            assertTrue(event.getJsonObject("links").getString("deadLetter").contains("dead-letter.xhtml?id=" + event.getInt("deadLetterId")));
        }

        // the same events at GET /api/events, each once (in the order of the transactions that wrote them)
        List<JsonObject> stored = new ArrayList<>();
        long cursor = after;
        while (true) {
            JsonObject page = viewer.get("api/events?after=" + cursor + "&limit=7").ok().json();
            page.getJsonArray("events").forEach(e -> stored.add(e.asJsonObject()));
            if (page.getJsonArray("events").isEmpty()) {
                break;
            }
            cursor = page.getJsonNumber("last").longValue();
        }
        assertEquals(30, stored.stream().filter(e -> "dead-lettered".equals(e.getString("type")) && runs.contains(e.getString("runId", ""))).count());
        // without after: the newest, as tail shows the end of a file
        JsonObject newest = viewer.get("api/events?limit=1").ok().json();
        assertEquals(1, newest.getJsonArray("events").size());
        assertEquals(stored.size(), stored.stream().map(e -> e.getJsonNumber("id").longValue()).distinct().count(), "no event twice");

        Received notification = Await.until("the webhook's notification", Duration.ofSeconds(60), () -> received.stream()
                .filter(r -> r.body().contains(runs.iterator().next()) || r.body().contains("\"count\":30")).findFirst().orElse(null), r -> r != null);
        // of the burst's runs (a dead letter of another cause, another class's, is another notification: not counted)
        assertEquals(1, received.stream().filter(r -> runs.stream().anyMatch(r.body()::contains)).count(),
                "one notification for the burst: " + received);
        JsonObject summary = Json.createReader(new StringReader(notification.body())).readObject();
        assertEquals("lazarus.event-summary/v1", summary.getString("schema"));
        assertEquals(30, summary.getInt("count"));
        assertEquals("dead-lettered", summary.getString("type"));
        assertTrue(summary.getJsonArray("sampleRunIds").size() >= 1 && summary.getJsonArray("sampleRunIds").size() <= 5);
        summary.getJsonArray("sampleRunIds").forEach(id -> assertTrue(runs.contains(((jakarta.json.JsonString) id).getString())));
        assertEquals("dead-lettered", notification.header("X-Lazarus-Event"));
        assertTrue(notification.header("X-Lazarus-Delivery") != null);
        long timestamp = Long.parseLong(notification.header("X-Lazarus-Timestamp"));
        assertTrue(Math.abs(timestamp - System.currentTimeMillis() / 1000) < 120);
        assertEquals(Signatures.sign(SECRET, timestamp, notification.body()), notification.header("X-Lazarus-Signature"),
                "the signature verifies with the secret");
    }

    @Test
    void aReceiverThatAnswers500MakesItsDeliveryRetryAndEndAsADeadLetterOfTheWebhookPipelineInItsOwnDlq() {
        answer = 500;
        assertEquals(201, createWebhook("failing", "[\"stopped\"]").status());
        String run = operator.startRun("{\"failures\":{\"index\":{\"mode\":\"hang\",\"seconds\":30}}}");
        Await.until("run " + run + " to be in progress", Duration.ofSeconds(60), () -> viewer.run(run),
                r -> "IN_PROGRESS".equals(r.getString("state")));
        operator.post("api/runs/" + run + "/stop", "{\"note\":\"stopped to see the webhook fail\"}").ok();
        JsonObject deadLetter = Await.until("the delivery to be dead-lettered", Duration.ofSeconds(90),
                () -> viewer.get("api/dead-letters?pipeline=webhook-delivery&limit=50").ok().json().getJsonArray("items").stream()
                        .map(JsonValue::asJsonObject).filter(this::ofADeliveryReceived).findFirst().orElse(null), d -> d != null);
        assertEquals("webhook-delivery", deadLetter.getString("pipeline"));
        assertTrue(received.size() >= 3, "retried: the test server allows 3 attempts; the receiver got " + received.size());
        Set<String> deliveries = new HashSet<>();
        received.forEach(r -> deliveries.add(r.header("X-Lazarus-Delivery")));
        assertEquals(1, deliveries.size(), "every attempt carries the same delivery id");
        Await.until("its message in DLQ.lazarus.webhook-delivery.post", Duration.ofSeconds(30),
                () -> broker.messageCount("DLQ.lazarus.webhook-delivery.post"), n -> n >= 1);

        // the pipeline is internal: no recreate, no payload edit of its dead letter (a body of one's own, signed and POSTed)
        long id = deadLetter.getJsonNumber("id").longValue();
        long deliveryRuns = viewer.get("api/runs?pipeline=webhook-delivery").ok().json().getJsonNumber("total").longValue();
        for (Api.Response refused : List.of(
                operator.post("api/dead-letters/" + id + "/recreate", "{\"payload\":{\"webhook\":\"failing\",\"body\":{\"forged\":true}}}"),
                operator.post("api/dead-letters/" + id + "/recreate", "{}"),
                operator.post("api/runs/" + deadLetter.getString("runId") + "/recreate", "{}"),
                operator.post("api/dead-letters/" + id + "/requeue", "{\"payload\":{\"webhook\":\"failing\",\"body\":{\"forged\":true}},"
                        + "\"note\":\"forging\"}"))) {
            assertEquals(409, refused.status(), refused.body());
            assertEquals("application/problem+json", refused.contentType());
            assertTrue(refused.body().contains("internal"), refused.body());
        }
        assertEquals(deliveryRuns, viewer.get("api/runs?pipeline=webhook-delivery").ok().json().getJsonNumber("total").longValue());
        assertTrue(received.stream().noneMatch(r -> r.body().contains("forged")));
        // a requeue resends it as it was, once the receiver is back
        answer = 204;
        int before = received.size();
        operator.post("api/dead-letters/" + id + "/requeue", "").ok();
        Await.until("the requeued delivery", Duration.ofSeconds(60), received::size, n -> n > before);
        assertTrue(received.stream().noneMatch(r -> r.body().contains("forged")));
    }

    @Test
    void aReceiverThatRefusesWith410IsNotRetriedItsDeliveryIsADeadLetterAtOnce() {
        answer = 410;
        assertEquals(201, createWebhook("revoked", "[\"stopped\"]").status());
        String run = operator.startRun("{\"failures\":{\"index\":{\"mode\":\"hang\",\"seconds\":30}}}");
        Await.until("run " + run + " to be in progress", Duration.ofSeconds(60), () -> viewer.run(run),
                r -> "IN_PROGRESS".equals(r.getString("state")));
        operator.post("api/runs/" + run + "/stop", "{\"note\":\"stopped to see the webhook refused\"}").ok();
        JsonObject deadLetter = Await.until("the delivery to be dead-lettered", Duration.ofSeconds(90),
                () -> viewer.get("api/dead-letters?pipeline=webhook-delivery&limit=50").ok().json().getJsonArray("items").stream()
                        .map(JsonValue::asJsonObject).filter(this::ofADeliveryReceived).findFirst().orElse(null), d -> d != null);
        assertEquals("NON_RETRYABLE", deadLetter.getString("reason"), deadLetter.toString());
        assertEquals(1, received.size(), "a refusal is not retried");
    }

    @Test
    void theWebhookPipelineTakesNoRunsFromOutside() {
        long deliveryRuns = viewer.get("api/runs?pipeline=webhook-delivery").ok().json().getJsonNumber("total").longValue();
        String forged = "{\"pipeline\":\"webhook-delivery\",\"payload\":{\"webhook\":\"from-configuration\",\"type\":\"held\","
                + "\"body\":{\"forged\":true}}}";
        for (Api.Response refused : List.of(operator.post("api/runs", forged),
                operator.post("api/runs", forged, "Idempotency-Key", "forged-1"),
                operator.post("api/runs/batch", "{\"runs\":[{\"pipeline\":\"document-ingestion\",\"payload\":{}}," + forged + "]}"))) {
            assertEquals(409, refused.status(), refused.body());
            assertEquals("application/problem+json", refused.contentType());
            assertTrue(refused.body().contains("internal"), refused.body());
        }
        assertEquals(deliveryRuns, viewer.get("api/runs?pipeline=webhook-delivery").ok().json().getJsonNumber("total").longValue(),
                "nothing stored");
    }

    @Test
    void aViewerSeesTheUrlMaskedAnOperatorWhole() {
        assertEquals(201, createWebhook("masked", "[]").status());
        String masked = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/…";
        assertEquals(masked, viewer.get("api/webhooks/masked").ok().json().getString("url"));
        assertTrue(viewer.get("api/webhooks").ok().body().contains(masked));
        assertFalse(viewer.get("api/webhooks").ok().body().contains("/hook"));
        assertFalse(viewer.get("api/webhooks").ok().body().contains("/configured"));
        assertEquals(hookUrl(), operator.get("api/webhooks/masked").ok().json().getString("url"));
        assertTrue(operator.get("api/webhooks").ok().body().contains(hookUrl()));
    }

    @Test
    void twoCreatesOfOneNameAtOnceMakeOneWebhookAndA409() throws Exception {
        String body = "{\"name\":\"raced\",\"url\":\"" + hookUrl() + "\",\"secret\":\"" + SECRET + "\"}";
        List<java.util.concurrent.Future<Api.Response>> answers = new ArrayList<>();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
        try {
            for (int i = 0; i < 8; i++) {
                answers.add(pool.submit(() -> operator.post("api/webhooks", body)));
            }
            List<Integer> statuses = new ArrayList<>();
            for (java.util.concurrent.Future<Api.Response> answer : answers) {
                statuses.add(answer.get().status());
            }
            if (statuses.contains(201)) {
                created.add("raced");
            }
            assertEquals(1, statuses.stream().filter(s -> s == 201).count(), statuses.toString());
            assertEquals(7, statuses.stream().filter(s -> s == 409).count(), statuses.toString());
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void theSecretIsNeverShownBackAndAConfiguredWebhookIsReadOnly() {
        assertEquals(201, createWebhook("shown", "[]").status());
        for (String path : List.of("api/webhooks", "api/webhooks/shown", "api/webhooks/from-configuration")) {
            Api.Response response = viewer.get(path).ok();
            assertFalse(response.body().contains(SECRET), path + ": " + response.body());
            assertFalse(response.body().contains("configured-secret-never-shown"), path + ": " + response.body());
        }
        JsonObject shown = viewer.get("api/webhooks/shown").ok().json();
        assertEquals("set", shown.getString("secret"));
        JsonObject configured = viewer.get("api/webhooks/from-configuration").ok().json();
        assertEquals("configuration", configured.getString("source"));
        assertTrue(configured.getBoolean("readOnly"));
        assertEquals(409, send(operator, "PUT", "api/webhooks/from-configuration", "{\"url\":\"http://127.0.0.1:9/x\"}").status());
    }

    @Test
    void hostileInputsAreRefusedWith400AndAViewerCannotCreate() {
        String tooLong = "https://example.com/" + "a".repeat(3000);
        for (String body : List.of(
                "{\"name\":\"h1\",\"url\":\"" + tooLong + "\",\"secret\":\"" + SECRET + "\"}",
                "{\"name\":\"h2\",\"url\":\"ftp://example.com/x\",\"secret\":\"" + SECRET + "\"}",
                "{\"name\":\"h3\",\"url\":\"file:///etc/passwd\",\"secret\":\"" + SECRET + "\"}",
                "{\"name\":\"h4\",\"url\":\"http://example.com/\\u0007\",\"secret\":\"" + SECRET + "\"}",
                "{\"name\":\"h\\u0000\",\"url\":\"http://example.com/\",\"secret\":\"" + SECRET + "\"}",
                "{\"name\":\"h6\",\"url\":\"http://example.com/\",\"secret\":\"" + SECRET + "\",\"owner\":\"me\"}",
                "{\"name\":\"h7\",\"url\":\"http://example.com/\",\"secret\":\"short\"}",
                "{\"name\":\"h8\",\"url\":\"http://example.com/\",\"secret\":\"" + SECRET + "\",\"types\":[\"exploded\"]}",
                "{\"name\":\"h9\",\"url\":\"http://example.com/\"}",
                "{\"name\":\"h10\",\"url\":\"http://example.com:99999/\",\"secret\":\"" + SECRET + "\"}")) {
            Api.Response response = operator.post("api/webhooks", body);
            assertEquals(400, response.status(), body + " -> " + response.body());
            assertEquals("application/problem+json", response.contentType());
        }
        assertEquals(403, viewer.post("api/webhooks", "{\"name\":\"v\",\"url\":\"http://example.com/\",\"secret\":\"" + SECRET + "\"}").status());
        assertEquals(404, viewer.get("api/webhooks/v").status());
        assertEquals(400, viewer.get("api/events?after=-1").status());
        assertEquals(400, viewer.get("api/events?limit=1001").status());
        assertEquals(400, viewer.get("api/events?since=1").status());
    }

    /** Whether the dead letter is of a delivery this test's receiver got (its run id is the X-Lazarus-Delivery header). */
    private boolean ofADeliveryReceived(JsonObject deadLetter) {
        return received.stream().anyMatch(r -> deadLetter.getString("runId", "").equals(r.header("X-Lazarus-Delivery")));
    }

    private Api operator() {
        return operator;
    }

    private long latestEventId() {
        long cursor = 0;
        while (true) {
            JsonObject page = viewer.get("api/events?after=" + cursor + "&limit=1000").ok().json();
            if (page.getJsonArray("events").isEmpty()) {
                return cursor;
            }
            cursor = page.getJsonNumber("last").longValue();
        }
    }

    /** PUT, DELETE and page reads, which {@link Api} does not have. */
    private Api.Response send(Api as, String method, String path, String body) {
        String user = as == viewer ? "viewer:viewer-pw" : "operator:operator-pw";
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base.toString().endsWith("/") ? base.toString() : base + "/").resolve(path))
                    .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(user.getBytes(StandardCharsets.UTF_8)))
                    .header("Content-Type", "application/json")
                    .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
            HttpResponse<String> response = HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Api.Response(response.statusCode(), response.headers().firstValue("Content-Type").orElse(null), null, null, response.body());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
