package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The webhooks page as operators and viewers use it: an operator creates, edits and deletes a webhook there (the same
 * rules as {@code /api/webhooks}, which checks what the page stored); the secret is never in the page; a refused input
 * is a message and stores nothing; a viewer is offered no form, and a form posted by a viewer or by nobody changes
 * nothing; a webhook from the configuration cannot be changed on the page.
 */
class WebhooksPageIT extends LazarusIT {

    private static final String SECRET = "page-secret-0123456789-never-shown";
    private static final String OTHER_URL = "https://hooks.example.org/lazarus-page-other";
    private static final String OTHER_SECRET = "page-secret-the-second-never-shown";
    private static final String URL = "http://127.0.0.1:9/page-hook";
    private static final String DUP_URL = "http://127.0.0.1:9/duplicated";
    private static final String EDITED_URL = "http://127.0.0.1:9/page-hook-edited?token=abc";

    private final List<String> made = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        List<String> left = new ArrayList<>();
        for (String name : made) { // every one deleted, then checked: one left behind would notify of every later class's events
            try {
                delete("api/webhooks/" + name);
            } catch (AssertionError | IllegalStateException e) {
                left.add(e.getMessage());
            }
        }
        assertTrue(left.isEmpty(), "webhooks not deleted: " + left);
    }

    @Test
    void anOperatorCreatesEditsAndDeletesAWebhookOnThePageAndItsSecretIsNeverInThePage() {
        made.add("page-hook");
        AdminPage page = operatorPage();
        String html = page.open("admin/webhooks.xhtml").body();
        assertTrue(html.contains("name=\"create:name\""), "an operator is offered the create form");
        assertTrue(html.matches("(?s).*name=\"create:name\"[^>]*maxlength=\"63\".*") || html.matches("(?s).*maxlength=\"63\"[^>]*name=\"create:name\".*"),
                "the name field is bounded as a name is");

        String created = page.submit("create", create("page-hook", URL, "dead-lettered", SECRET)).body();
        assertTrue(created.contains("Webhook page-hook created"), created);
        assertFalse(created.contains(SECRET), "the secret is not in the page");
        assertTrue(page.rowOf("<td>page-hook</td>") != null, "it is listed");
        JsonObject stored = operator.get("api/webhooks/page-hook").ok().json();
        assertEquals(URL, stored.getString("url"));
        assertEquals(List.of("dead-lettered"), types(stored));
        assertTrue(stored.getBoolean("enabled"));
        assertEquals("set", stored.getString("secret"));
        assertEquals("api", stored.getString("source"));
        assertEquals("operator", stored.getString("updatedBy"));

        String editing = page.open("admin/webhooks.xhtml?edit=page-hook").body();
        assertTrue(editing.contains("name=\"edit:url\""), "the edit form");
        assertTrue(editing.contains("value=\"" + URL + "\""), "it starts with the webhook's URL");
        assertFalse(editing.contains(SECRET), "the secret is not in the edit form");
        // a new URL and type, disabled (an unticked box is not posted), the secret field left empty: the secret is kept
        Map<String, String> edit = new LinkedHashMap<>(Map.of("edit:url", EDITED_URL, "edit:types", "held", "edit:secret", "",
                "edit:save", "Save"));
        String saved = page.submit("edit", edit).body();
        assertTrue(saved.contains("Webhook page-hook saved"), saved);
        JsonObject changed = operator.get("api/webhooks/page-hook").ok().json();
        assertEquals(EDITED_URL, changed.getString("url"));
        assertEquals(List.of("held"), types(changed));
        assertFalse(changed.getBoolean("enabled"));
        assertEquals("set", changed.getString("secret"), "an empty secret field keeps the secret");

        // a new secret, also never shown back
        page.open("admin/webhooks.xhtml?edit=page-hook");
        String resecret = page.submit("edit", Map.of("edit:url", EDITED_URL, "edit:secret", OTHER_SECRET, "edit:enabled", "on",
                "edit:save", "Save")).body();
        assertTrue(resecret.contains("Webhook page-hook saved"), resecret);
        assertFalse(resecret.contains(OTHER_SECRET));
        assertFalse(page.open("admin/webhooks.xhtml?edit=page-hook").body().contains(OTHER_SECRET));
        assertTrue(operator.get("api/webhooks/page-hook").ok().json().getBoolean("enabled"));
        assertEquals(List.of(), types(operator.get("api/webhooks/page-hook").ok().json()), "no type ticked: all types");

        // an invalid URL on edit: a message, the page stays with what was typed, nothing changed
        String refused = page.submit("edit", Map.of("edit:url", "ftp://example.com/x", "edit:secret", "", "edit:save", "Save")).body();
        assertTrue(refused.contains("http or https"), refused);
        assertTrue(refused.contains("value=\"ftp://example.com/x\""), "what was typed is kept");
        assertEquals(EDITED_URL, operator.get("api/webhooks/page-hook").ok().json().getString("url"));

        page.open("admin/webhooks.xhtml?edit=page-hook");
        assertTrue(page.html().matches("(?s).*name=\"edit:delete\"[^>]*data-confirm=\"[^\"]+\".*"), "Delete asks first");
        String deleted = page.submit("edit", Map.of("edit:url", EDITED_URL, "edit:delete", "Delete")).body();
        assertTrue(deleted.contains("Webhook page-hook deleted"), deleted);
        assertEquals(null, page.rowOf("<td>page-hook</td>"), "no longer listed");
        assertEquals(404, operator.get("api/webhooks/page-hook").status());
    }

    @Test
    void whatTheControlRefusesIsAMessageOnThePageAndNothingIsStored() {
        made.add("page-bad");
        made.add("page-dup");
        AdminPage page = operatorPage();
        page.open("admin/webhooks.xhtml");
        String badUrl = page.submit("create", create("page-bad", "ftp://example.com/x", "dead-lettered", SECRET)).body();
        assertTrue(badUrl.contains("http or https"), badUrl);
        assertTrue(badUrl.contains("value=\"page-bad\""), "what was typed is kept");
        assertFalse(badUrl.contains(SECRET), "but never the secret");
        assertEquals(404, operator.get("api/webhooks/page-bad").status(), "nothing stored");
        assertFalse(page.open("admin/webhooks.xhtml").body().contains("http or https"), "the message is said once, not again on the next page");

        Map<String, Map<String, String>> refusals = new LinkedHashMap<>();
        refusals.put("may not contain", create("page-bad", "http://example.com/\u0007", "dead-lettered", SECRET));
        refusals.put("at most 2000", create("page-bad", "https://example.com/" + "a".repeat(2100), "dead-lettered", SECRET));
        refusals.put("lower-case letters", create("page-bad-" + "x".repeat(60), URL, "dead-lettered", SECRET));
        refusals.put("16 to 200", create("page-bad", URL, "dead-lettered", "short"));
        refusals.put("printable", create("page-bad", URL, "dead-lettered", "secret-with-a-bell-\u0007-in-it"));
        for (Map.Entry<String, Map<String, String>> refusal : refusals.entrySet()) {
            AdminPage.Answer answer = page.submit("create", refusal.getValue());
            assertEquals(200, answer.status(), refusal.getKey());
            assertTrue(answer.body().contains(refusal.getKey()), refusal.getKey() + " in " + answer.body());
        }
        // a type the page does not offer (a forged post): refused, and said so
        AdminPage.Answer unknownType = page.submit("create", create("page-bad", URL, "exploded", SECRET));
        assertEquals(200, unknownType.status());
        assertTrue(unknownType.body().contains("class=\"warn\"") || unknownType.body().contains("class=\"error\""), unknownType.body());
        assertEquals(404, operator.get("api/webhooks/page-bad").status(), "nothing stored");
        assertEquals(List.of(), names().stream().filter(n -> n.startsWith("page-bad")).toList(), "nothing stored under any name");

        // a form the page did not draw (no view state of its own): the guard of every admin page's action refuses it
        Map<String, String> notDrawn = new LinkedHashMap<>(create("page-bad", URL, "held", SECRET));
        notDrawn.put("create", "create");
        notDrawn.put("jakarta.faces.ViewState", "stateless");
        AdminPage.Answer replayed = page.post("admin/webhooks.xhtml", notDrawn);
        assertTrue(replayed.status() < 500, replayed.status() + ": " + replayed.body());
        assertTrue(replayed.body().contains("out of date"), "and says so: " + replayed.body());
        assertEquals(404, operator.get("api/webhooks/page-bad").status(), "a form the page did not draw creates nothing");

        page.open("admin/webhooks.xhtml");
        assertTrue(page.submit("create", create("page-dup", DUP_URL, "held", SECRET)).body().contains("Webhook page-dup created"));
        page.open("admin/webhooks.xhtml");
        String duplicate = page.submit("create", create("page-dup", EDITED_URL, "held", SECRET)).body();
        assertTrue(duplicate.contains("a webhook named page-dup exists"), duplicate);
        assertEquals(DUP_URL, operator.get("api/webhooks/page-dup").ok().json().getString("url"), "the first is unchanged");
    }

    @Test
    void aSaveOrDeleteFromAFormOlderThanTheWebhookChangesNothingAndSaysSo() {
        made.add("page-stale");
        assertEquals(201, operator.post("api/webhooks", "{\"name\":\"page-stale\",\"url\":\"" + URL + "\",\"secret\":\"" + SECRET
                + "\"}").status());
        AdminPage first = operatorPage();
        first.open("admin/webhooks.xhtml?edit=page-stale");
        // meanwhile another operator disables it (the receiver spams, say)
        AdminPage other = operatorPage();
        other.open("admin/webhooks.xhtml?edit=page-stale");
        assertTrue(other.submit("edit", Map.of("edit:url", URL, "edit:secret", "", "edit:save", "Save")).body().contains("Webhook page-stale saved"));
        assertFalse(operator.get("api/webhooks/page-stale").ok().json().getBoolean("enabled"));

        // the first form, drawn before that change, would enable it again with its URL: refused, nothing changed
        String stale = first.submit("edit", Map.of("edit:url", EDITED_URL, "edit:enabled", "on", "edit:secret", "", "edit:save", "Save")).body();
        assertTrue(stale.contains("was changed since this form was drawn"), stale);
        JsonObject now = operator.get("api/webhooks/page-stale").ok().json();
        assertEquals(URL, now.getString("url"));
        assertFalse(now.getBoolean("enabled"), "the newer change stands");
        String staleDelete = first.submit("edit", Map.of("edit:url", EDITED_URL, "edit:delete", "Delete")).body();
        assertTrue(staleDelete.contains("was changed since this form was drawn"), staleDelete);
        assertEquals(200, operator.get("api/webhooks/page-stale").status(), "not deleted");

        // deleted and made again under the same name: a form drawn for the old one does not touch the new one
        AdminPage old = operatorPage();
        old.open("admin/webhooks.xhtml?edit=page-stale");
        delete("api/webhooks/page-stale");
        assertEquals(201, operator.post("api/webhooks", "{\"name\":\"page-stale\",\"url\":\"" + OTHER_URL + "\",\"secret\":\""
                + OTHER_SECRET + "\"}").status());
        String onTheNewOne = old.submit("edit", Map.of("edit:url", EDITED_URL, "edit:enabled", "on", "edit:secret", "", "edit:save", "Save")).body();
        assertTrue(onTheNewOne.contains("was changed since this form was drawn"), onTheNewOne);
        assertEquals(OTHER_URL, operator.get("api/webhooks/page-stale").ok().json().getString("url"));

        // deleted while its form is open: the save says there is none (it is not dropped with the form without a word)
        AdminPage gone = operatorPage();
        gone.open("admin/webhooks.xhtml?edit=page-stale");
        delete("api/webhooks/page-stale");
        String saveOfNone = gone.submit("edit", Map.of("edit:url", EDITED_URL, "edit:secret", "", "edit:save", "Save")).body();
        assertTrue(saveOfNone.contains("no webhook named page-stale"), saveOfNone);
        assertEquals(404, operator.get("api/webhooks/page-stale").status(), "nothing was made by the save");
    }

    @Test
    void aViewerSeesTheListMaskedIsOfferedNoFormAndAViewersOrNobodysPostChangesNothing() {
        made.add("page-seen");
        made.add("page-forged");
        assertEquals(201, operator.post("api/webhooks", "{\"name\":\"page-seen\",\"url\":\"" + EDITED_URL + "\",\"secret\":\"" + SECRET
                + "\"}").status());
        AdminPage asViewer = new AdminPage(base);
        asViewer.signIn("viewer", "viewer-pw");
        String seen = asViewer.open("admin/webhooks.xhtml").body();
        assertTrue(asViewer.rowOf("page-seen") != null, "a viewer sees the list");
        assertTrue(asViewer.rowOf("page-seen").contains("http://127.0.0.1:9/"), "the URL masked");
        assertFalse(seen.contains("page-hook-edited"), "not its path");
        assertFalse(seen.contains("token=abc"), "nor its query");
        assertFalse(seen.contains("<form id=\"create\""), "no create form");
        assertFalse(seen.contains("name=\"create:"), "no create form");
        assertFalse(seen.contains("?edit="), "no edit link");
        assertFalse(asViewer.open("admin/webhooks.xhtml?edit=page-seen").body().contains("name=\"edit:"), "no edit form");

        Map<String, String> forged = new LinkedHashMap<>(create("page-forged", URL, "held", SECRET));
        forged.put("create", "create");
        forged.put("jakarta.faces.ViewState", "stateless");
        AdminPage.Answer viewers = asViewer.post("admin/webhooks.xhtml", forged);
        assertTrue(viewers.status() < 500, viewers.status() + ": " + viewers.body());
        Map<String, String> forgedEdit = new LinkedHashMap<>(Map.of("edit", "edit", "edit:url", URL, "edit:secret", "", "edit:save", "Save",
                "jakarta.faces.ViewState", "stateless"));
        assertTrue(asViewer.post("admin/webhooks.xhtml?edit=page-seen", forgedEdit).status() < 500);
        forgedEdit.put("edit:delete", "Delete");
        assertTrue(asViewer.post("admin/webhooks.xhtml?edit=page-seen", forgedEdit).status() < 500);

        AdminPage nobody = new AdminPage(base);
        AdminPage.Answer anonymous = nobody.post("admin/webhooks.xhtml", forged);
        assertTrue(anonymous.status() < 500, anonymous.status() + ": " + anonymous.body());

        assertEquals(404, operator.get("api/webhooks/page-forged").status(), "nothing created");
        JsonObject still = operator.get("api/webhooks/page-seen").ok().json();
        assertEquals(EDITED_URL, still.getString("url"), "nothing edited");
    }

    @Test
    void aWebhookFromTheConfigurationIsReadOnlyOnThePage() {
        AdminPage page = operatorPage();
        page.open("admin/webhooks.xhtml");
        String row = page.rowOf("from-configuration");
        assertTrue(row != null, "listed");
        assertTrue(row.contains("read-only"), row);
        assertFalse(row.contains("?edit="), "no edit link for it: " + row);
        String editing = page.open("admin/webhooks.xhtml?edit=from-configuration").body();
        assertFalse(editing.contains("name=\"edit:"), "no edit form for it");
        assertTrue(editing.contains("comes from the configuration"), editing);
        assertFalse(editing.contains("configured-secret-never-shown"));
        assertEquals("http://127.0.0.1:9/configured", operator.get("api/webhooks/from-configuration").ok().json().getString("url"));
    }

    private AdminPage operatorPage() {
        AdminPage page = new AdminPage(base);
        page.signIn("operator", "operator-pw");
        return page;
    }

    /** The create form's fields: enabled ticked, one type. */
    private static Map<String, String> create(String name, String url, String type, String secret) {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("create:name", name);
        fields.put("create:url", url);
        fields.put("create:types", type);
        fields.put("create:secret", secret);
        fields.put("create:enabled", "on");
        fields.put("create:create", "Create");
        return fields;
    }

    private static List<String> types(JsonObject webhook) {
        return webhook.getJsonArray("types").getValuesAs(JsonString.class).stream().map(JsonString::getString).toList();
    }

    private List<String> names() {
        return jakarta.json.Json.createReader(new java.io.StringReader(operator.get("api/webhooks").ok().body())).readArray()
                .getValuesAs(JsonObject.class).stream().map(w -> w.getString("name")).toList();
    }

    /** DELETE, which {@link Api} does not have; a 404 (never made, or deleted by the test) is fine. */
    private void delete(String path) {
        HttpResponse<String> response;
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create(base.toString().endsWith("/") ? base.toString() : base + "/").resolve(path))
                    .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("operator:operator-pw".getBytes(StandardCharsets.UTF_8)))
                    .header("Content-Type", "application/json") // an action over the API says so (ApiSecurity)
                    .DELETE().build();
            response = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        assertTrue(response.statusCode() == 204 || response.statusCode() == 404, path + ": " + response.statusCode() + " " + response.body());
    }
}
