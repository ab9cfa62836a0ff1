package dev.lazarus.it;

import static dev.lazarus.platform.control.Jsonp.JSON;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.JsonObject;
import java.io.StringReader;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /api/runs/{id}/retry-now}: a run whose step failed and waits in backoff (its message scheduled for
 * redelivery on the broker) is delivered at once; any other run is a 409 that says why.
 */
class RetryNowIT extends LazarusIT {

    @Test
    void aRunWaitingInALongBackoffCompletesAtOnceWhenRetriedNow() {
        String original = broker.addressSettings(FETCH);
        JsonObject settings;
        try (var reader = JSON.createReader(new StringReader(original))) {
            settings = reader.readObject();
        }
        // a minute's backoff on fetch: without retry-now the run would wait that long
        broker.setAddressSettings(FETCH, JSON.createObjectBuilder(settings).add("redeliveryDelay", 60_000)
                .add("maxRedeliveryDelay", 60_000).build().toString());
        try {
            String id = operator.startRun("{\"failures\":{\"fetch\":{\"mode\":\"transient\",\"succeedOnAttempt\":2}}}");
            awaitRun(id, "RETRYING");
            Api.Response retried = operator.post("api/runs/" + id + "/retry-now", "");
            assertEquals(202, retried.status(), retried.body());
            assertEquals("fetch", retried.json().getString("step"));

            JsonObject run = Await.until("the run retried now to complete well before its minute's backoff", Duration.ofSeconds(30),
                    () -> viewer.run(id), r -> "COMPLETED".equals(r.getString("state")));
            assertEquals(2, executions(run, "fetch").get(0).getInt("attempts"), "retry now cost no attempt beyond its delivery");
            assertEquals(409, operator.post("api/runs/" + id + "/retry-now", "").status(), "done: nothing waits any more");
        } finally {
            broker.setAddressSettings(FETCH, original);
        }
    }

    @Test
    void aRunNotWaitingInBackoffIsA409ThatSaysWhyAndAnUnknownRunA404() {
        String completed = operator.startRun("{\"url\":\"https://example.org/retry-now.html\"}");
        String deadLettered = operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"permanent\"}}}");
        awaitRun(completed, "COMPLETED");
        awaitRun(deadLettered, "DEAD_LETTERED");

        Api.Response done = operator.post("api/runs/" + completed + "/retry-now", "");
        assertEquals(409, done.status(), done.body());
        assertEquals("application/problem+json", done.contentType());
        assertTrue(done.body().contains("completed"), done.body());
        Api.Response stopped = operator.post("api/runs/" + deadLettered + "/retry-now", "");
        assertEquals(409, stopped.status());
        assertTrue(stopped.body().contains("dead-lettered"), stopped.body());

        assertEquals(404, operator.post("api/runs/" + UUID.randomUUID() + "/retry-now", "").status());
        assertEquals(404, operator.post("api/runs/not-a-run/retry-now", "").status());
        assertEquals(403, viewer.post("api/runs/" + completed + "/retry-now", "").status(), "acting needs the operator role");
        assertEquals(401, anonymous.post("api/runs/" + completed + "/retry-now", "").status());
    }
}
