package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.JsonObject;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A page's buttons act on what the page showed, however long it stayed open and whatever the session did meanwhile
 * (Reference, Security: a session keeps its last pages; a button on one it no longer keeps does nothing and says so).
 * The page beans keep the filter; a session keeps a few view-scoped beans (numberOfActiveViewMaps) and, separately,
 * a few views (numberOfLogicalViews): a button must never be decoded by a bean that did not draw its page.
 */
class PageLifetimeIT extends LazarusIT {

    private static final Pattern VIEW_STATE = Pattern.compile("name=\"jakarta\\.faces\\.ViewState\"[^>]*value=\"([^\"]+)\"");

    private final HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager())
            .followRedirects(HttpClient.Redirect.NORMAL).build();

    @Test
    void requeueAllOnAFilteredListActsOnThatFilterAfterTheSessionBrowsedTenOtherLists() throws Exception {
        String permanent = "{\"failures\": {\"fetch\": {\"mode\": \"permanent\"}}}";
        String one = operator.startRun(permanent);
        String other = operator.startRun(permanent);
        awaitRun(one, "DEAD_LETTERED");
        awaitRun(other, "DEAD_LETTERED");

        signIn("operator", "operator-pw");
        String list = get("admin/dead-letters.xhtml?runId=" + one);
        Matcher viewState = VIEW_STATE.matcher(list);
        viewState.find();
        for (int page = 0; page < 11; page++) {
            get("admin/runs.xhtml"); // the operator looks at the runs in another tab, now and then
        }
        Map<String, String> form = new LinkedHashMap<>();
        form.put("bulk", "bulk");
        form.put("bulk:rate", "0");
        form.put("bulk:requeueAll", "Requeue all 1");
        form.put("jakarta.faces.ViewState", viewState.group(1).replace("&#58;", ":"));
        post("admin/dead-letters.xhtml", form); // "Requeue all 1 matching dead letters?" - yes

        JsonObject job = jakarta.json.Json.createReader(new java.io.StringReader(viewer.get("api/requeue-jobs").body())).readArray()
                .getJsonObject(0);
        assertEquals(1, job.getInt("total"), "the job the list of run " + one + " started: " + job);
        assertEquals("DEAD_LETTERED", viewer.run(other).getString("state"), "a run the list did not show was requeued");
    }

    @Test
    void aButtonOnAPageTheSessionNoLongerKeepsDoesNothingAndSaysSo() throws Exception {
        String permanent = "{\"failures\": {\"fetch\": {\"mode\": \"permanent\"}}}";
        String one = operator.startRun(permanent);
        awaitRun(one, "DEAD_LETTERED");
        int jobsBefore = jobCount();

        signIn("operator", "operator-pw");
        String list = get("admin/dead-letters.xhtml?runId=" + one);
        Matcher viewState = VIEW_STATE.matcher(list);
        viewState.find();
        for (int page = 0; page < 13; page++) {
            get("admin/dead-letters.xhtml?status=OPEN&step=fetch&page=" + page); // pages with buttons, each a view
        }
        String answer = post("admin/dead-letters.xhtml", Map.of("bulk", "bulk", "bulk:rate", "0", "bulk:requeueAll", "Requeue all 1",
                "jakarta.faces.ViewState", viewState.group(1).replace("&#58;", ":")));

        assertTrue(answer.contains("out of date"), "the page says nothing was done: " + answer);
        assertEquals(jobsBefore, jobCount(), "no job was started");
        assertEquals("DEAD_LETTERED", viewer.run(one).getString("state"));
    }

    @Test
    void aRowsRequeueActsOnThatRowsDeadLetterAfterTheSessionBrowsedOtherPages() throws Exception {
        String permanent = "{\"failures\": {\"fetch\": {\"mode\": \"permanent\"}}}";
        String first = operator.startRun(permanent);
        String second = operator.startRun(permanent);
        awaitRun(first, "DEAD_LETTERED");
        awaitRun(second, "DEAD_LETTERED");

        signIn("operator", "operator-pw");
        String marker = "step=fetch&status=OPEN&from=" + java.time.Instant.now().minusSeconds(120);
        String list = get("admin/dead-letters.xhtml?" + marker);
        Matcher viewState = VIEW_STATE.matcher(list);
        viewState.find();
        // the button in the row of the first run, as the page drew it
        Matcher rows = Pattern.compile("<tr[^>]*>(.*?)</tr>", Pattern.DOTALL).matcher(list);
        String button = null;
        while (rows.find() && button == null) {
            if (rows.group(1).contains(first)) {
                Matcher named = Pattern.compile("name=\"(deadLetters:table:\\d+:requeue)\"").matcher(rows.group(1));
                button = named.find() ? named.group(1) : null;
            }
        }
        assertTrue(button != null, "the list shows the first run with its Requeue button");
        for (int page = 0; page < 11; page++) {
            get("admin/runs.xhtml");
        }
        String third = operator.startRun(permanent); // a newer dead letter: the list, drawn again, would shift down
        awaitRun(third, "DEAD_LETTERED");
        post("admin/dead-letters.xhtml", Map.of("deadLetters", "deadLetters", button, "Requeue",
                "jakarta.faces.ViewState", viewState.group(1).replace("&#58;", ":")));

        Await.until("the first run to be requeued", java.time.Duration.ofSeconds(30), () -> viewer.run(first).getInt("requeueCount"),
                count -> count == 1);
        assertEquals(0, viewer.run(second).getInt("requeueCount"), "no other row was requeued");
        assertEquals(0, viewer.run(third).getInt("requeueCount"), "no other row was requeued");
    }

    private int jobCount() {
        return jakarta.json.Json.createReader(new java.io.StringReader(viewer.get("api/requeue-jobs").body())).readArray().size();
    }

    private void signIn(String user, String password) throws Exception {
        get("admin/dashboard.xhtml");
        post("j_security_check", Map.of("j_username", user, "j_password", password));
    }

    private String get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private String post(String path, Map<String, String> fields) throws Exception {
        String body = fields.entrySet().stream()
                .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }
}
