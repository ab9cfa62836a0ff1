package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.JsonObject;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every delivery of a step that reached it is kept, with its node, times, outcome and failure, in the run's history
 * and on its page; only the last {@code lazarus.attempts.kept-per-step} of a dispatch (3 on the test server,
 * arquillian.xml).
 */
class AttemptHistoryIT extends LazarusIT {

    @Test
    void aStepFailingTwiceThenSucceedingShowsThreeAttemptsWithOutcomeNodeAndFailure() {
        String id = operator.startRun("{\"failures\":{\"fetch\":{\"mode\":\"transient\",\"succeedOnAttempt\":3}}}");
        awaitRun(id, "COMPLETED");

        List<JsonObject> dispatches = dispatches(id);
        JsonObject fetch = dispatches.get(0);
        assertEquals(3, fetch.getInt("attemptCount"));
        List<JsonObject> attempts = attempts(fetch);
        assertEquals(List.of(1, 2, 3), attempts.stream().map(a -> a.getInt("attempt")).toList());
        assertEquals(List.of("FAILED", "FAILED", "SUCCEEDED"), attempts.stream().map(a -> a.getString("outcome")).toList());
        for (JsonObject attempt : attempts) {
            assertFalse(attempt.getString("node").isBlank(), "the node that ran it: " + attempt);
            Instant started = Instant.parse(attempt.getString("startedAt"));
            Instant ended = Instant.parse(attempt.getString("endedAt"));
            assertFalse(ended.isBefore(started), attempt.toString());
        }
        for (JsonObject failed : attempts.subList(0, 2)) {
            assertEquals("java.lang.IllegalStateException", failed.getString("exceptionClass"));
            assertTrue(failed.getString("message").contains("simulated transient failure in fetch (attempt "
                    + failed.getInt("attempt")), failed.toString());
        }
        // JSON-B leaves a null out: absent or null, a success has no failure
        assertTrue(!attempts.get(2).containsKey("exceptionClass") || attempts.get(2).isNull("exceptionClass"), "a success has no failure");
        // the other steps succeeded at once: their attempt written by the statement that recorded their success
        for (JsonObject other : dispatches.subList(1, 3)) {
            assertEquals(List.of("SUCCEEDED"), attempts(other).stream().map(a -> a.getString("outcome")).toList(), other.toString());
            assertEquals(1, attempts(other).get(0).getInt("attempt"));
        }

        AdminPage page = new AdminPage(base);
        page.signIn("viewer", "viewer-pw");
        String html = page.open("admin/run.xhtml?id=" + id).body();
        String table = html.substring(html.indexOf("<h2>Attempts</h2>"), html.indexOf("<h2>Dead letters</h2>"));
        assertEquals(2, count(table, ">FAILED<"), table);
        assertEquals(3, count(table, ">SUCCEEDED<"), "one per step: " + table);
        assertTrue(table.contains(attempts.get(0).getString("node")), "the node is shown: " + table);
        assertTrue(table.contains("java.lang.IllegalStateException") && table.contains("simulated transient failure in fetch"), table);
    }

    @Test
    void aDeclaredPermanentFailureShowsAsNonRetryableAndAGivenUpStepKeepsItsLastAttempts() {
        String permanent = operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"permanent\"}}}");
        String always = operator.startRun("{\"failures\":{\"index\":{\"mode\":\"always\"}}}");
        awaitRun(permanent, "DEAD_LETTERED");
        awaitRun(always, "DEAD_LETTERED");

        List<JsonObject> parse = attempts(dispatches(permanent).get(1));
        assertEquals(1, parse.size(), parse.toString());
        assertEquals("NON_RETRYABLE", parse.get(0).getString("outcome"));
        assertEquals("dev.lazarus.pipeline.control.PermanentStepFailure", parse.get(0).getString("exceptionClass"));
        assertNotNull(parse.get(0).getString("endedAt"));

        // index allows 5 attempts; the test server keeps the last 3 of a dispatch
        JsonObject index = dispatches(always).get(2);
        assertEquals(5, index.getInt("attemptCount"));
        List<JsonObject> kept = attempts(index);
        assertEquals(List.of(3, 4, 5), kept.stream().map(a -> a.getInt("attempt")).toList(), "the last 3: " + kept);
        assertEquals(List.of("FAILED", "FAILED", "FAILED"), kept.stream().map(a -> a.getString("outcome")).toList(),
                "the last one too, recorded with its dead letter");
    }

    private List<JsonObject> dispatches(String runId) {
        return viewer.get("api/runs/" + runId + "/history").ok().json().getJsonArray("dispatches").getValuesAs(JsonObject.class);
    }

    private static List<JsonObject> attempts(JsonObject dispatch) {
        return dispatch.getJsonArray("attempts").getValuesAs(JsonObject.class);
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }
}
