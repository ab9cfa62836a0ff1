package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.it.Api.Response;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every action of the API, tried by someone who may not take it: no credentials get 401 with a Basic
 * challenge, a viewer gets 403, and nothing changes. Reads are open to viewers and closed to anonymous.
 */
class SecurityIT extends LazarusIT {

    /** Every state-changing endpoint, with a body it would accept from an operator. */
    private static final List<String[]> ACTIONS = List.of(
            new String[] {"api/runs", "{\"pipeline\":\"document-ingestion\",\"payload\":{}}"},
            new String[] {"api/runs/batch", "{\"runs\":[{\"pipeline\":\"document-ingestion\",\"payload\":{}}]}"},
            new String[] {"api/dead-letters/1/requeue", ""},
            new String[] {"api/dead-letters/1/investigate", "{}"},
            new String[] {"api/dead-letters/1/notes", "{\"note\":\"n\"}"},
            new String[] {"api/dead-letters/1/resolve", "{\"note\":\"n\"}"},
            new String[] {"api/dead-letters/1/discard", "{\"note\":\"n\"}"},
            new String[] {"api/requeue-jobs", "{\"filter\":{},\"ratePerSecond\":1}"},
            new String[] {"api/requeue-jobs/1/cancel", ""},
            new String[] {"api/bulk-jobs", "{\"action\":\"discard\",\"filter\":{},\"ratePerSecond\":1,\"note\":\"n\"}"},
            new String[] {"api/bulk-jobs/1/cancel", ""},
            new String[] {"api/staleness/sweep", ""});

    private static final List<String> READS = List.of("api/runs", "api/dead-letters", "api/dead-letters/stats",
            "api/dead-letters/investigation-queue", "api/requeue-jobs", "api/requeue-jobs/dry-run", "api/staleness",
            "api/bulk-jobs", "api/bulk-jobs/dry-run?action=discard");

    @Test
    void anonymousCallersGet401OnEveryActionAndRead() {
        long runs = runCount();
        for (String[] action : ACTIONS) {
            Response refused = anonymous.post(action[0], action[1]);
            assertEquals(401, refused.status(), action[0]);
            assertTrue(refused.wwwAuthenticate().startsWith("Basic"), action[0]);
        }
        for (String read : READS) {
            assertEquals(401, anonymous.get(read).status(), read);
        }
        assertEquals(runs, runCount(), "nothing was started");
    }

    @Test
    void viewersGet403OnEveryActionAnd200OnEveryRead() {
        long runs = runCount();
        for (String[] action : ACTIONS) {
            Response refused = viewer.post(action[0], action[1]);
            assertEquals(403, refused.status(), action[0]);
            assertEquals("application/problem+json", refused.contentType(), action[0]);
        }
        for (String read : READS) {
            assertEquals(200, viewer.get(read).status(), read);
        }
        assertEquals(runs, runCount(), "nothing was started");
    }
}
