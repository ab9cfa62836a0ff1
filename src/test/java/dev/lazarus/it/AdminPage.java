package dev.lazarus.it;

import java.io.IOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.URL;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The JSF admin page driven over plain HTTP, as a browser would: form login, then the page's own form posts
 * (with its view state). The real-browser version of this comes with the Selenium tests.
 */
public class AdminPage {

    private static final Pattern VIEW_STATE = Pattern.compile("name=\"jakarta\\.faces\\.ViewState\"[^>]*value=\"([^\"]+)\"");
    private static final Pattern ROW = Pattern.compile("<tr[^>]*>(.*?)</tr>", Pattern.DOTALL);
    private static final Pattern REQUEUE_BUTTON = Pattern.compile("name=\"(deadLetters:table:\\d+:requeue)\"");

    private final CookieManager cookies = new CookieManager();
    private final HttpClient http = HttpClient.newBuilder().cookieHandler(cookies)
            .followRedirects(HttpClient.Redirect.NORMAL).build();
    private final URI root;
    private URI page;
    private String html;

    public AdminPage(URL base) {
        root = URI.create(base.toString().endsWith("/") ? base.toString() : base + "/");
        this.page = root.resolve("admin/dead-letters.xhtml");
    }

    /** A page's answer: its status, body and headers. */
    public record Answer(int status, String body, Map<String, List<String>> headers) {

        /** The header's value (the first, if several), or "" when it is absent. */
        public String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name)).flatMap(e -> e.getValue().stream())
                    .findFirst().orElse("");
        }
    }

    /** Opens another page of the signed-in session ({@code path} relative to the application, with its query). */
    public Answer open(String path) {
        page = root.resolve(path);
        Answer answer = exchange(HttpRequest.newBuilder(page).GET());
        html = answer.body();
        return answer;
    }

    /** Submits the form {@code formId} of the page last opened, with {@code fields} and the page's view state. */
    public Answer submit(String formId, Map<String, String> fields) {
        Matcher viewState = VIEW_STATE.matcher(html);
        if (!viewState.find()) {
            throw new AssertionError("no view state on the page: " + html);
        }
        Map<String, String> posted = new java.util.LinkedHashMap<>(fields);
        posted.put(formId, formId);
        posted.put("jakarta.faces.ViewState", viewState.group(1).replace("&#58;", ":"));
        URI action = URI.create(page.toString().replaceFirst("\\?.*$", ""));
        Answer answer = exchange(form(action, posted));
        html = answer.body();
        return answer;
    }

    /**
     * POSTs {@code fields} to a page of the session as they are, with no view state added: a form forged by hand, not one
     * the page drew.
     */
    public Answer post(String path, Map<String, String> fields) {
        page = root.resolve(path);
        Answer answer = exchange(form(page, fields));
        html = answer.body();
        return answer;
    }

    /** Opens the page, signs in on the login form it is sent to, and returns the page's HTML. */
    public String signIn(String user, String password) {
        html = send(HttpRequest.newBuilder(page).GET());
        if (!html.contains("j_security_check")) {
            throw new AssertionError("expected the login form, got: " + html);
        }
        html = send(form(page.resolve("../j_security_check"), Map.of("j_username", user, "j_password", password)));
        return html;
    }

    /** The server session this client signed in to: its JSESSIONID cookie (the session id, then the node after a dot), or "" before it has one. */
    public String sessionId() {
        return cookies.getCookieStore().getCookies().stream().filter(c -> c.getName().equals("JSESSIONID")).map(java.net.HttpCookie::getValue).findFirst().orElse("");
    }

    public String html() {
        return html;
    }

    /** The table row that shows {@code runId}, or null. */
    public String rowOf(String runId) {
        Matcher rows = ROW.matcher(html);
        while (rows.find()) {
            if (rows.group(1).contains(runId)) {
                return rows.group(1);
            }
        }
        return null;
    }

    /** Clicks the Requeue button in the run's row; returns the page the server answers with. */
    public String requeue(String runId) {
        String row = rowOf(runId);
        if (row == null) {
            throw new AssertionError("no row for run " + runId + " on the page");
        }
        Matcher button = REQUEUE_BUTTON.matcher(row);
        if (!button.find()) {
            throw new AssertionError("no Requeue button in the row of run " + runId + ": " + row);
        }
        Matcher viewState = VIEW_STATE.matcher(html);
        if (!viewState.find()) {
            throw new AssertionError("no view state on the page");
        }
        html = send(form(page, Map.of("deadLetters", "deadLetters", button.group(1), "Requeue",
                "jakarta.faces.ViewState", viewState.group(1).replace("&#58;", ":"))));
        return html;
    }

    private static HttpRequest.Builder form(URI target, Map<String, String> fields) {
        String body = fields.entrySet().stream()
                .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
        return HttpRequest.newBuilder(target).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body));
    }

    private String send(HttpRequest.Builder request) {
        return exchange(request).body();
    }

    private Answer exchange(HttpRequest.Builder request) {
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), response.body(), response.headers().map());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
