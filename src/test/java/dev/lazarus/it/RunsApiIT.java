package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.it.Api.Response;
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
        assertEquals(403, viewer.post("api/runs", "{\"pipeline\":\"document-ingestion\"}").status());
        // Anonymous callers are sent to the login form: they never see data and never start a run.
        assertFalse(anonymous.get("api/runs").body().contains("\"items\""));
        long before = runCount();
        assertFalse(anonymous.post("api/runs", "{\"pipeline\":\"document-ingestion\"}").body().contains("\"id\""));
        assertEquals(before, runCount());
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
