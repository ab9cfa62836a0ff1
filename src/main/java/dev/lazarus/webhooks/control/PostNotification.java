package dev.lazarus.webhooks.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.pipeline.control.PermanentStepFailure;
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
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The step {@code post} of {@link WebhookDelivery}: POSTs a notification (its run's payload: {@code webhook}, {@code type},
 * {@code body}) to the webhook's URL as it is now, signed with its secret (see {@link Signatures}). A 2xx answer delivers
 * it. A 5xx, 408 or 429, a connection error, or no complete answer (status, headers and body) within
 * {@link #EXCHANGE_TIMEOUT} fails this attempt, and the broker delivers it again after the backoff. Any other answer
 * (4xx: the receiver refuses, its URL revoked, say) is permanent: the run is dead-lettered at once ({@code NON_RETRYABLE}).
 * A webhook deleted or disabled since is not called: the run completes, saying so.
 *
 * <p>Headers: {@code X-Lazarus-Event} (the type), {@code X-Lazarus-Delivery} (the run's id: the same for every attempt,
 * so a receiver can tell a retry from a new notification), {@code X-Lazarus-Timestamp} (epoch seconds, this attempt)
 * and {@code X-Lazarus-Signature}.
 */
@ApplicationScoped
public class PostNotification implements StepHandler {

    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(10);
    /**
     * The bound of the whole exchange, the body included: the step holds its consumer thread, transaction and database
     * connection meanwhile, so a receiver that answers and then trickles its body may not keep them.
     */
    static final Duration EXCHANGE_TIMEOUT = CONNECT_TIMEOUT.plus(ANSWER_TIMEOUT);

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
        int status = exchange(HTTP, request, EXCHANGE_TIMEOUT, "webhook " + name);
        requireDelivered(status, "webhook " + name);
        return JSON.createObjectBuilder(payload).add("outcome", "delivered: HTTP " + status).build();
    }

    /**
     * Sends the request and reads the whole answer (its body discarded) within {@code bound}, or gives up: the exchange is
     * cancelled (the connection closed) and this attempt fails, to be retried.
     */
    static int exchange(HttpClient client, HttpRequest request, Duration bound, String receiver) throws IOException, InterruptedException {
        CompletableFuture<HttpResponse<Void>> answer = client.sendAsync(request, HttpResponse.BodyHandlers.discarding());
        try {
            return answer.get(bound.toMillis(), TimeUnit.MILLISECONDS).statusCode();
        } catch (TimeoutException e) {
            answer.cancel(true);
            throw new HttpTimeoutException(receiver + " did not answer completely within " + bound.toMillis() + " ms"
                    + " (status, headers and body); the delivery is tried again");
        } catch (InterruptedException e) {
            answer.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new IOException(receiver + " could not be called: " + cause, cause);
        }
    }

    /**
     * Nothing for a 2xx. A 4xx but 408 (timeout) and 429 (too many requests) is the receiver refusing the delivery (a
     * revoked URL, a removed channel): retrying cannot help, so it is permanent. Anything else is retried.
     */
    static void requireDelivered(int status, String receiver) throws IOException, PermanentStepFailure {
        if (status / 100 == 2) {
            return;
        }
        if (status / 100 == 4 && status != 408 && status != 429) {
            throw new PermanentStepFailure(receiver + " refused the delivery: HTTP " + status + " (not retried: fix or remove the"
                    + " webhook, then requeue the dead letter)");
        }
        throw new IOException(receiver + " answered HTTP " + status);
    }
}
