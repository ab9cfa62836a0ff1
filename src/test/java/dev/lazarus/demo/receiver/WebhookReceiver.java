package dev.lazarus.demo.receiver;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A small webhook receiver for the demo stack, to see what a webhook gets: it listens on 127.0.0.1, registers itself as
 * the webhook {@code demo-receiver} (with a fresh random secret), verifies each notification's signature as the
 * events and webhooks guide says a receiver should, prints one line per notification and, when it stops (Ctrl-C too),
 * deletes the webhook it registered, so a demo leaves nothing behind that would call a closed port.
 *
 * <pre>
 * mvn -Pdemo package
 * mvn -Pwebhook-receiver test-compile exec:java                                   # until Ctrl-C
 * mvn -Pwebhook-receiver test-compile exec:java -Dreceiver.count=1 -Dreceiver.timeout=PT2M   # for a script
 * </pre>
 *
 * Settings in {@link ReceiverSettings}. Exit codes: 0 when {@code receiver.count} notifications were verified, 1 when
 * {@code receiver.timeout} passed first, 2 when it could not start (port taken, stack down, credentials refused).
 */
public final class WebhookReceiver implements AutoCloseable {

    static final String PATH = "/hook";
    /** A summary is a few KiB; far more is not a notification from Lazarus, and is refused unread. */
    static final int BODY_LIMIT = 1024 * 1024;

    private final ReceiverSettings settings;
    private final PrintStream out;
    private final Clock clock;
    private final SignatureCheck signatures;
    /** Ids of the deliveries verified so far: a retry of one carries the same id and is not a new notification. */
    private final Set<String> deliveries = ConcurrentHashMap.newKeySet();
    private final CountDownLatch awaited;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private HttpServer server;
    private volatile boolean registered;

    WebhookReceiver(ReceiverSettings settings, PrintStream out, Clock clock) {
        this.settings = settings;
        this.out = out;
        this.clock = clock;
        this.signatures = new SignatureCheck(settings.secret());
        this.awaited = new CountDownLatch(Math.max(settings.count(), 1));
    }

    public static void main(String[] args) {
        int exit;
        try {
            WebhookReceiver receiver = new WebhookReceiver(ReceiverSettings.from(System.getProperties()), System.out, Clock.systemUTC());
            // before registering: a Ctrl-C at any moment after the webhook exists deletes it
            Runtime.getRuntime().addShutdownHook(new Thread(receiver::close, "webhook-receiver-cleanup"));
            receiver.open();
            exit = receiver.await();
        } catch (IllegalArgumentException | IllegalStateException e) {
            System.err.println("[receiver] " + e.getMessage());
            exit = 2;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            exit = 1;
        }
        // the exit runs the shutdown hook, which deletes the webhook
        System.exit(exit);
    }

    /** Listens, and registers the webhook; closed again if either fails. */
    void open() {
        try {
            start();
            register();
        } catch (IOException | RuntimeException e) {
            close();
            String why = e.getMessage();
            if (e instanceof BindException) {
                why = "cannot listen on 127.0.0.1:" + settings.port() + " (" + e.getMessage() + "): choose another -Dreceiver.port";
            } else if (e instanceof ConnectException) {
                why = "nothing answers at " + settings.lazarus() + ": is the demo stack running (mvn -Pdemo package)?";
            }
            throw new IllegalStateException(why, e);
        } catch (InterruptedException e) {
            close();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while registering the webhook", e);
        }
    }

    /** Without a count, until the process is stopped; with one, 0 when that many arrived, 1 when the timeout passed first. */
    int await() throws InterruptedException {
        if (settings.count() == 0) {
            log("waiting for notifications; Ctrl-C deletes the webhook and stops");
            new CountDownLatch(1).await(); // until Ctrl-C
        }
        log("waiting for %d notification(s), at most %s", settings.count(), settings.timeout());
        if (awaited.await(settings.timeout().toMillis(), TimeUnit.MILLISECONDS)) {
            log("%d notification(s) verified", settings.count());
            return 0;
        }
        log("only %d of %d notification(s) verified within %s", deliveries.size(), settings.count(), settings.timeout());
        return 1;
    }

    /** Starts listening (without registering anything): the tests call it alone. Returns the port. */
    int start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", settings.port()), 0);
        server.createContext(PATH, this::receive);
        server.start();
        log("listening on %s", hookUrl());
        return server.getAddress().getPort();
    }

    String hookUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + PATH;
    }

    /** Deletes the webhook if this receiver registered it, and stops listening; once, whoever calls first. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (registered) {
            try {
                HttpResponse<String> deleted = call("DELETE", "api/webhooks/" + settings.name(), null);
                if (deleted.statusCode() == 204 || deleted.statusCode() == 404) {
                    log("deleted the webhook %s", settings.name());
                } else {
                    log("could not delete the webhook %s: %s", settings.name(), answer(deleted));
                }
            } catch (IOException e) {
                log("could not delete the webhook %s (%s): delete it with DELETE %sapi/webhooks/%s", settings.name(), e,
                        settings.lazarus(), settings.name());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (server != null) {
            server.stop(0);
        }
    }

    private void receive(HttpExchange exchange) throws IOException {
        boolean counted;
        try (exchange) {
            counted = respond(exchange);
        }
        if (counted) {
            awaited.countDown(); // once answered: the last one may end the process, and Lazarus must get its 204 first
        }
    }

    /** Answers one request and prints its line; whether it was a notification not received before. */
    private boolean respond(HttpExchange exchange) throws IOException {
        if (!"POST".equals(exchange.getRequestMethod())) {
            exchange.getResponseHeaders().set("Allow", "POST");
            exchange.sendResponseHeaders(405, -1);
            return false;
        }
        String event = exchange.getRequestHeaders().getFirst("X-Lazarus-Event");
        String delivery = exchange.getRequestHeaders().getFirst("X-Lazarus-Delivery");
        Instant now = clock.instant();
        byte[] body = exchange.getRequestBody().readNBytes(BODY_LIMIT + 1);
        if (body.length > BODY_LIMIT) {
            print(now, event, "REJECTED (a body over " + BODY_LIMIT + " bytes)", delivery);
            exchange.sendResponseHeaders(413, -1);
            return false;
        }
        SignatureCheck.Verdict verdict = signatures.check(exchange.getRequestHeaders().getFirst("X-Lazarus-Timestamp"),
                exchange.getRequestHeaders().getFirst("X-Lazarus-Signature"), body, now);
        if (verdict != SignatureCheck.Verdict.VERIFIED) {
            // nothing of an unverified body is shown: it may come from anyone who can reach the port
            print(now, event, "REJECTED (" + verdict.explanation + ")", delivery);
            exchange.sendResponseHeaders(401, -1);
            return false;
        }
        boolean first = delivery == null || deliveries.add(delivery);
        print(now, event, "verified  " + describe(body) + (first ? "" : " (again: a retry of a delivery already received)"), delivery);
        exchange.sendResponseHeaders(204, -1);
        return first;
    }

    /** The notification in one line: a summary ({@code lazarus.event-summary/v1}) or a single event ({@code lazarus.event/v1}). */
    static String describe(byte[] body) {
        JsonObject notification;
        try {
            notification = Json.createReader(new ByteArrayInputStream(body)).readObject();
        } catch (JsonException | IllegalStateException e) {
            return "(the body is not a JSON object)";
        }
        StringBuilder line = new StringBuilder();
        field(line, "type", notification.get("type"));
        line.append(" count=").append(notification.getInt("count", 1));
        field(line, "pipeline", notification.get("pipeline"));
        field(line, "step", notification.get("step"));
        field(line, "reason", notification.get("reason"));
        if (notification.get("cause") instanceof JsonObject cause) {
            // the exception's simple name and its message, as the dead-letter pages show a cause; else its fingerprint
            String exception = cause.getString("exceptionClass", "");
            String message = cause.getString("message", "");
            String text = exception.substring(exception.lastIndexOf('.') + 1)
                    + (!exception.isEmpty() && !message.isEmpty() ? ": " : "") + message;
            line.append(" cause=\"").append(oneLine(text.isEmpty() ? cause.getString("fingerprint", "") : text, 160)).append('"');
        }
        field(line, "who", notification.get("who"));
        field(line, "run", notification.get("runId"));
        return line.toString().strip();
    }

    private static void field(StringBuilder line, String name, JsonValue value) {
        if (value instanceof JsonString text) {
            line.append(' ').append(name).append('=').append(oneLine(text.getString(), 100));
        }
    }

    /** The receiver prints one line per notification: no newline or other control character of a message may break it. */
    private static String oneLine(String text, int limit) {
        String flat = text.replaceAll("\\p{Cntrl}", " ");
        return flat.length() > limit ? flat.substring(0, limit) + "…" : flat;
    }

    private void print(Instant at, String event, String what, String delivery) {
        out.printf("%s  %s  %s  delivery=%s%n", at.truncatedTo(ChronoUnit.SECONDS), event == null ? "-" : oneLine(event, 40), what,
                delivery == null ? "-" : oneLine(delivery, 40));
    }

    /**
     * Creates the webhook, or replaces it if one of that name is there already (a receiver killed without its shutdown
     * hook left it, with a secret nobody knows now).
     */
    private void register() throws IOException, InterruptedException {
        JsonArrayBuilder types = Json.createArrayBuilder();
        settings.types().forEach(types::add);
        JsonObjectBuilder webhook = Json.createObjectBuilder().add("url", hookUrl()).add("secret", settings.secret())
                .add("types", types).add("enabled", true);
        JsonObject change = webhook.build();
        HttpResponse<String> created = call("POST", "api/webhooks",
                Json.createObjectBuilder(change).add("name", settings.name()).build());
        String done = "registered";
        if (created.statusCode() == 409) {
            HttpResponse<String> replaced = call("PUT", "api/webhooks/" + settings.name(), change);
            if (replaced.statusCode() != 200) {
                throw new IllegalStateException("the webhook " + settings.name() + " exists and could not be replaced: "
                        + answer(replaced) + (replaced.statusCode() == 409 ? " (it is in the server's configuration: choose"
                        + " another -Dreceiver.name)" : ""));
            }
            done = "replaced";
        } else if (created.statusCode() != 201) {
            throw new IllegalStateException("could not register the webhook " + settings.name() + ": " + answer(created));
        }
        registered = true;
        log("%s the webhook %s at %s for %s; Lazarus posts a burst's notification lazarus.webhooks.coalesce-interval"
                        + " (30 s by default) after its first event", done, settings.name(), settings.lazarus(),
                settings.types().isEmpty() ? "every event type" : String.join(", ", settings.types()));
    }

    private HttpResponse<String> call(String method, String path, JsonObject body) throws IOException, InterruptedException {
        String credentials = settings.user() + ":" + settings.password();
        HttpRequest.Builder request = HttpRequest.newBuilder(settings.lazarus().resolve(path)).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
        if (!"GET".equals(method)) {
            // every action, a DELETE without a body too: the server refuses any other (its guard against cross-site forms)
            request.header("Content-Type", "application/json");
        }
        request.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body.toString()));
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** An answer of the API in a few words: a refused login says which settings to check, a problem its detail. */
    private static String answer(HttpResponse<String> response) {
        return switch (response.statusCode()) {
            case 401 -> "HTTP 401: check -Dlazarus.user and -Dlazarus.password";
            case 403 -> "HTTP 403: -Dlazarus.user needs the operator role";
            default -> {
                String detail = response.body();
                try {
                    detail = Json.createReader(new StringReader(response.body())).readObject().getString("detail", detail);
                } catch (JsonException | IllegalStateException | ClassCastException notAProblem) {
                    // not problem+json: the body as it is
                }
                yield "HTTP " + response.statusCode() + " " + oneLine(detail, 300);
            }
        };
    }

    private void log(String format, Object... args) {
        out.println("[receiver] " + String.format(format, args));
    }
}
