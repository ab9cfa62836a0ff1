package dev.lazarus.cli;

import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/**
 * The REST API as the commands call it: a GET or a JSON POST, with HTTP Basic credentials, answering the body of a
 * 2xx; anything else becomes a {@link Failure} with the server's own words (a problem's title and detail) and the exit
 * code of its status.
 */
public final class Api {

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);

    // HTTP/1.1: the JDK's client would otherwise offer an h2c upgrade on a request with a body, which a server that
    // refuses before reading the body answers with a reset connection instead of its problem
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(CONNECT_TIMEOUT).build();
    private final Settings settings;

    public Api(Settings settings) {
        this.settings = settings;
    }

    public URI base() {
        return settings.url();
    }

    /** The body of {@code GET path} ({@code path} relative to the API, such as {@code runs?state=PENDING}). */
    public String get(String path) {
        return send(request(path).GET());
    }

    /** The body of {@code POST path} with {@code json} (actions need {@code Content-Type: application/json}). */
    public String post(String path, String json) {
        return send(request(path).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8)));
    }

    private HttpRequest.Builder request(String path) {
        String[] credentials = settings.credentials();
        String basic = Base64.getEncoder().encodeToString((credentials[0] + ":" + credentials[1]).getBytes(StandardCharsets.UTF_8));
        return HttpRequest.newBuilder(settings.url().resolve("api/" + path)).timeout(REQUEST_TIMEOUT)
                .header("Accept", "application/json").header("Authorization", "Basic " + basic);
    }

    private String send(HttpRequest.Builder builder) {
        HttpRequest request = builder.build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (HttpTimeoutException e) {
            throw new Failure(Exit.SERVER, "no answer from " + settings.url() + " within " + REQUEST_TIMEOUT.toSeconds() + " s");
        } catch (IOException e) {
            throw new Failure(Exit.SERVER, "cannot reach " + settings.url() + " (" + describe(e)
                    + "); is the server running? Set " + Settings.URL + " or --url to another");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failure(Exit.SERVER, "interrupted");
        }
        int status = response.statusCode();
        if (status >= 200 && status < 300) {
            return response.body();
        }
        throw new Failure(Exit.forStatus(status), problem(status, response.body()));
    }

    /**
     * One line from an error answer: {@code 404 Not found: no run 42} from a problem's status, title and detail, or
     * the start of whatever else the server sent. Control characters are left out: they are the server's data, not
     * instructions to the terminal.
     */
    static String problem(int status, String body) {
        JsonValue json = Json.parseOrNull(body);
        if (json instanceof JsonObject problem) {
            String title = text(problem.get("title"));
            String detail = text(problem.get("detail"));
            if (title != null || detail != null) {
                String said = title == null ? detail : detail == null || detail.equals(title) ? title : title + ": " + detail;
                return Cells.oneLine(status + " " + said, 1000);
            }
        }
        String text = body == null ? "" : Cells.oneLine(body, 200);
        return status + (text.isEmpty() ? " (no explanation from the server)" : ": " + text);
    }

    private static String text(JsonValue value) {
        return value instanceof JsonString string && !string.getString().isBlank() ? string.getString() : null;
    }

    private static String describe(IOException e) {
        String message = e.getMessage();
        return e.getClass().getSimpleName() + (message == null || message.isBlank() ? "" : ": " + Cells.oneLine(message, 200));
    }

    /** One path segment or query part, percent-encoded (spaces as %20, which a path needs and a query takes). */
    public static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
