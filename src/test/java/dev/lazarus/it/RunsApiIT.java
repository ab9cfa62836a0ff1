package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.it.Api.Response;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** Starting runs over HTTP: created with a Location, and every bad request refused with a problem, storing nothing. */
class RunsApiIT extends LazarusIT {

    @Test
    void startedRunAnswers201WithItsLocation() {
        Response created = operator.post("api/runs", "{\"pipeline\":\"document-ingestion\",\"payload\":{\"url\":\"u\"}}");
        assertEquals(201, created.status());
        String id = created.json().getString("id");
        assertTrue(created.location().endsWith("/api/runs/" + id), created.location());
        assertEquals("document-ingestion", viewer.get("api/runs/" + id).ok().json().getString("pipeline"));
    }

    @Test
    void malformedJsonIsRefusedWithAProblemAndStoresNothing() {
        assertRefused(() -> operator.post("api/runs", "{\"pipeline\": \"document-ingestion\", "), 400, "not valid JSON");
    }

    @Test
    void unknownPipelineIsRefusedWithAProblemAndStoresNothing() {
        assertRefused(() -> operator.post("api/runs", "{\"pipeline\":\"no-such-pipeline\",\"payload\":{}}"), 422, "no-such-pipeline");
    }

    @Test
    void oversizedPayloadIsRefusedWithAProblemAndStoresNothing() {
        String big = "x".repeat(70_000);
        assertRefused(() -> operator.post("api/runs", "{\"pipeline\":\"document-ingestion\",\"payload\":{\"content\":\"" + big + "\"}}"),
                413, "65536");
    }

    @Test
    void payloadThatIsNotAnObjectIsRefused() {
        assertRefused(() -> operator.post("api/runs", "{\"pipeline\":\"document-ingestion\",\"payload\":[1]}"), 400, "payload");
    }

    @Test
    void unknownRunIsAProblemNotAnError() {
        Response missing = viewer.get("api/runs/00000000-0000-0000-0000-000000000000");
        assertEquals(404, missing.status());
        assertEquals("application/problem+json", missing.contentType());
    }

    @Test
    void viewerMayReadButNotStartRunsAndAnonymousMayDoNeither() {
        assertEquals(200, viewer.get("api/runs").status());
        Response forbidden = viewer.post("api/runs", "{\"pipeline\":\"document-ingestion\"}");
        assertEquals(403, forbidden.status());
        assertEquals("application/problem+json", forbidden.contentType());

        long before = runCount();
        for (Response refused : List.of(anonymous.get("api/runs"), anonymous.post("api/runs", "{\"pipeline\":\"document-ingestion\"}"),
                new Api(base, "operator", "not-the-password").get("api/runs"))) {
            assertEquals(401, refused.status(), refused.body());
            assertEquals("application/problem+json", refused.contentType());
            assertTrue(refused.wwwAuthenticate().startsWith("Basic"), "a Basic challenge, not a login page");
        }
        assertEquals(before, runCount());
    }

    @Test
    void actionsMustBeJsonSoNoCrossSiteFormCanPostThem() {
        long before = runCount();
        Response form = operator.postAs("api/runs", "text/plain", "{\"pipeline\":\"document-ingestion\"}");
        assertEquals(415, form.status());
        assertEquals(before, runCount());
    }

    @Test
    void theServerServesAnOpenApiDocumentOfEveryEndpoint() {
        Api root = new Api(rootOf(base), null, null);
        Response document = root.get("openapi?format=JSON");
        assertEquals(200, document.status());
        for (String path : List.of("/runs", "/runs/{id}", "/dead-letters/{id}/requeue", "/dead-letters/{id}/discard",
                "/dead-letters/stats", "/dead-letters/investigation-queue", "/staleness")) {
            assertTrue(document.body().contains(path + "\""), "the document describes " + path);
        }
    }

    private static java.net.URL rootOf(java.net.URL base) {
        try {
            return new java.net.URL(base.getProtocol(), base.getHost(), base.getPort(), "/");
        } catch (java.net.MalformedURLException e) {
            throw new IllegalStateException(e);
        }
    }

    private long runCount() {
        return viewer.get("api/runs?limit=1").ok().json().getJsonNumber("total").longValue();
    }

    private void assertRefused(Supplier<Response> request, int status, String detailMentions) {
        long before = runCount();
        Response response = request.get();
        assertEquals(status, response.status(), response.body());
        assertEquals("application/problem+json", response.contentType());
        assertEquals(status, response.json().getInt("status"));
        assertTrue(response.json().getString("detail").contains(detailMentions), response.json().getString("detail"));
        assertEquals(before, runCount(), "a refused request stores no run");
    }
}
