package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Starting many runs in one call: all or none, each bad item named, retried safely with an Idempotency-Key. */
class BatchSubmissionIT extends LazarusIT {

    private static String item(String url) {
        return "{\"pipeline\":\"document-ingestion\",\"payload\":{\"url\":\"" + url + "\"}}";
    }

    private static String batch(String... items) {
        return "{\"runs\":[" + String.join(",", items) + "]}";
    }

    @Test
    void aBatchStartsEveryRunInTheOrderGivenAndEachRunsToCompletion() {
        String tag = UUID.randomUUID().toString();
        Api.Response created = operator.post("api/runs/batch", batch(item(tag + "/a"), item(tag + "/b"), item(tag + "/c")));
        assertEquals(201, created.status(), created.body());
        assertEquals(3, created.json().getInt("count"));
        JsonArray runs = created.json().getJsonArray("runs");
        for (int i = 0; i < 3; i++) {
            JsonObject run = awaitRun(runs.getJsonObject(i).getString("id"), "COMPLETED");
            assertEquals(tag + "/" + "abc".charAt(i), run.getJsonObject("payload").getString("url"), "run " + i + " is item " + i);
        }
    }

    @Test
    void aBatchWithBadItemsIsRefusedNamingEachOneAndStartsNone() {
        assertRefused(() -> operator.post("api/runs/batch", batch(item("fine"), "{\"pipeline\":\"document-ingestion\",\"payload\":\"x\"}",
                "{\"payload\":{}}", "42")), 400, "3 of 4 runs are not valid: runs[1].'payload' must be a JSON object;"
                + " runs[2].'pipeline' is required");
        assertRefused(() -> operator.post("api/runs/batch", batch(item("fine"), "42")), 400, "runs[1] must be an object");
        assertRefused(() -> operator.post("api/runs/batch", batch(item("fine"),
                "{\"pipeline\":\"no-such-pipeline\",\"payload\":{}}")), 422, "runs[1]: unknown pipeline 'no-such-pipeline'");
        assertRefused(() -> operator.post("api/runs/batch", batch(item("fine"),
                "{\"pipeline\":\"document-ingestion\",\"payload\":{\"content\":\"" + "x".repeat(70_000) + "\"}}")), 400,
                "runs[1].'payload' is larger than 65536 bytes");
    }

    @Test
    void aBatchOfTheMostRunsAllowedStartsThemAll() {
        long before = runCount();
        String tag = UUID.randomUUID().toString();
        Api.Response created = operator.post("api/runs/batch", batch(IntStream.range(0, 1000).mapToObj(i -> item(tag + "/" + i))
                .toArray(String[]::new)));
        assertEquals(201, created.status(), created.body());
        assertEquals(1000, created.json().getInt("count"));
        assertEquals(1000, ids(created).stream().distinct().count());
        assertEquals(before + 1000, runCount());
        // the last run's first step ran: its message was sent with the others (the rest of the pipeline is tested above)
        String last = ids(created).get(999);
        Await.until("run " + last + " to get past its first step", Duration.ofSeconds(60), () -> viewer.run(last),
                run -> !"fetch".equals(run.getString("currentStep")));
        awaitStepQueuesDrained();
    }

    @Test
    void everyBadItemIsCountedAndTheFirstTenNamed() {
        String[] items = IntStream.range(0, 13).mapToObj(i -> "{\"pipeline\":\"document-ingestion\",\"payload\":" + i + "}")
                .toArray(String[]::new);
        assertRefused(() -> operator.post("api/runs/batch", batch(items)), 400, "13 of 13 runs are not valid: runs[0].");
        assertRefused(() -> operator.post("api/runs/batch", batch(items)), 400, "runs[9].'payload' must be a JSON object; and 3 more");
    }

    @Test
    void aBatchsKeyNeverMeetsASingleRunsKey() {
        String key = UUID.randomUUID().toString();
        Api.Response single = operator.post("api/runs", item("single"), "Idempotency-Key", key + "/0");
        assertEquals(201, single.status(), single.body());
        Api.Response batch = operator.post("api/runs/batch", batch(item("batched")), "Idempotency-Key", key);
        assertEquals(201, batch.status(), "a batch keyed " + key + " is not the single run keyed " + key + "/0: " + batch.body());
    }

    @Test
    void aBatchThatIsNotABatchOrTooBigIsRefused() {
        assertRefused(() -> operator.post("api/runs/batch", "{\"runs\":[]}"), 400, "non-empty array");
        assertRefused(() -> operator.post("api/runs/batch", "{\"pipeline\":\"document-ingestion\"}"), 400, "'runs' is required");
        assertRefused(() -> operator.post("api/runs/batch", "[" + item("a") + "]"), 400, "must be a JSON object");
        String tooMany = batch(IntStream.range(0, 1001).mapToObj(i -> item("u" + i)).toArray(String[]::new));
        assertRefused(() -> operator.post("api/runs/batch", tooMany), 413, "at most 1000 runs (lazarus.run.max-batch)");
    }

    @Test
    void aRetriedBatchWithItsIdempotencyKeyGetsTheRunsTheFirstOneStarted() {
        String key = UUID.randomUUID().toString();
        String body = batch(item("retried-1"), item("retried-2"));
        Api.Response first = operator.post("api/runs/batch", body, "Idempotency-Key", key);
        assertEquals(201, first.status(), first.body());
        long count = runCount();

        Api.Response retry = operator.post("api/runs/batch", body, "Idempotency-Key", key);
        assertEquals(200, retry.status(), retry.body());
        assertEquals(ids(first), ids(retry), "the same runs, in the same order");
        assertEquals(count, runCount(), "a retry starts nothing");

        assertRefused(() -> operator.post("api/runs/batch", batch(item("retried-2"), item("retried-1")), "Idempotency-Key", key),
                422, "different batch");
        assertRefused(() -> operator.post("api/runs/batch", batch(item("retried-1")), "Idempotency-Key", key), 422, "different batch");
        assertRefused(() -> operator.post("api/runs/batch", batch(item("retried-1"), item("retried-2"), item("retried-3")),
                "Idempotency-Key", key), 422, "different batch");
    }

    private static List<String> ids(Api.Response batch) {
        return batch.json().getJsonArray("runs").stream().map(r -> r.asJsonObject().getString("id")).collect(Collectors.toList());
    }
}
