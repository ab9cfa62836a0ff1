package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Review of the hardening change, on the pages: README, Security: "a session keeps its last 10 pages: a button on an
 * older one reloads its page with a message and does nothing". The page beans keep the filter; a session keeps up to 10
 * view-scoped beans (numberOfActiveViewMaps) and, separately, up to 10 views (numberOfLogicalViews). Pages with a
 * view-scoped bean and no form (runs, investigation queue, requeue jobs) use up the first and not the second.
 */
class AttackPagesIT extends LazarusIT {

    private static final Pattern VIEW_STATE = Pattern.compile("name=\"jakarta\\.faces\\.ViewState\"[^>]*value=\"([^\"]+)\"");

    private final HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager())
            .followRedirects(HttpClient.Redirect.NORMAL).build();

    @BeforeEach
    void clients() {
        operator = new Api(base, "operator", "operator-pw");
        viewer = new Api(base, "viewer", "viewer-pw");
    }

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
