package dev.lazarus.webhooks.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.pipeline.control.StepContext;
import dev.lazarus.pipeline.control.StepHandler;
import dev.lazarus.webhooks.entity.Webhook;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * The step {@code post} of {@link WebhookDelivery}: POSTs a notification (its run's payload: {@code webhook}, {@code type},
 * {@code body}) to the webhook's URL as it is now, signed with its secret (see {@link Signatures}). A 2xx answer delivers
 * it; anything else, or no answer within the timeouts (connect 5 s, answer 10 s), fails this attempt, and the broker
 * delivers it again after the backoff. A webhook deleted or disabled since is not called: the run completes, saying so.
 *
 * <p>Headers: {@code X-Lazarus-Event} (the type), {@code X-Lazarus-Delivery} (the run's id: the same for every attempt,
 * so a receiver can tell a retry from a new notification), {@code X-Lazarus-Timestamp} (epoch seconds, this attempt)
 * and {@code X-Lazarus-Signature}.
 */
@ApplicationScoped
public class PostNotification implements StepHandler {

    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(10);

    /** Redirects are not followed: a signed body goes only where the operator said. */
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT)
            .followRedirects(HttpClient.Redirect.NEVER).build();

    @Inject
    Webhooks webhooks;

    @Inject
    Clock clock;

    @Override
    public JsonObject handle(StepContext context) throws Exception {
        JsonObject payload = context.payload();
        String name = payload.getString("webhook", "");
        Optional<Webhook> found = webhooks.find(name);
        if (found.isEmpty() || !found.get().enabled() || !found.get().hasSecret()) {
            return JSON.createObjectBuilder(payload).add("outcome", found.isEmpty() ? "webhook deleted" : "webhook disabled").build();
        }
        Webhook webhook = found.get();
        String body = payload.getJsonObject("body").toString();
        long timestamp = clock.instant().getEpochSecond();
        HttpRequest request = HttpRequest.newBuilder(URI.create(webhook.url()))
                .timeout(ANSWER_TIMEOUT)
                .header("Content-Type", "application/json")
                .header("User-Agent", "Lazarus-Webhooks/1")
                .header("X-Lazarus-Event", payload.getString("type", ""))
                .header("X-Lazarus-Delivery", context.runId().toString())
                .header("X-Lazarus-Timestamp", Long.toString(timestamp))
                .header("X-Lazarus-Signature", Signatures.sign(webhook.signingSecret(), timestamp, body))
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                .build();
        HttpResponse<Void> response = HTTP.send(request, HttpResponse.BodyHandlers.discarding());
        if (response.statusCode() / 100 != 2) {
            throw new IOException("webhook " + name + " answered HTTP " + response.statusCode());
        }
        return JSON.createObjectBuilder(payload).add("outcome", "delivered: HTTP " + response.statusCode()).build();
    }
}
