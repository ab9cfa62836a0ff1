package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Runs and dead letters found by what an operator knows: a business key, labels and a field of the submitted payload,
 * over the API (GET /api/runs and /api/dead-letters) and from the admin pages' search box; a unique key refused when
 * taken, also by submissions racing each other; hostile search values refused with a 400.
 */
class SearchIT extends LazarusIT {

    private static final String PIPELINE = "document-ingestion";

    private static String enc(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    /** A run's submission: {@code extra} holds the key, labels and uniqueKey members (or nothing). */
    private static String run(String payload, String extra) {
        return "{\"pipeline\":\"" + PIPELINE + "\",\"payload\":" + payload + (extra.isEmpty() ? "" : "," + extra) + "}";
    }

    /** The id of the run a submission created (201). */
    private static String started(Api.Response created) {
        assertEquals(201, created.status(), created.body());
        return created.json().getString("id");
    }

    private static List<String> ids(Api.Response list) {
        return list.ok().json().getJsonArray("items").stream().map(item -> item.asJsonObject().getString("id")).toList();
    }

    private List<String> runsFound(String query) {
        return ids(viewer.get("api/runs?" + query));
    }

    private static List<String> labels(JsonObject view) {
        return view.getJsonArray("labels").getValuesAs(JsonString.class).stream().map(JsonString::getString).toList();
    }

    @Test
    void singleAndBatchRunsAreFoundByKeyLabelAndPayloadField() {
        String tag = "t-" + UUID.randomUUID();
        Api.Response single = operator.post("api/runs", run("{\"customer\":{\"id\":42,\"name\":\"Ann Lee\"},\"url\":\"" + tag + "\"}",
                "\"key\":\"" + tag + "-order-1\",\"labels\":[\"" + tag + "\",\"vip\"]"));
        assertEquals(201, single.status(), single.body());
        String first = single.json().getString("id");
        assertEquals(tag + "-order-1", single.json().getString("key"), "the answer shows the key");
        Api.Response batch = operator.post("api/runs/batch", "{\"runs\":[" + run("{\"customer\":{\"id\":\"42\"}}",
                "\"key\":\"" + tag + "-order-2\",\"labels\":[\"" + tag + "\"]") + "," + run("{\"customer\":{\"id\":43}}",
                "\"labels\":[\"" + tag + "\",\"vip\"]") + "]}");
        assertEquals(201, batch.status(), batch.body());
        JsonArray started = batch.json().getJsonArray("runs");
        String second = started.getJsonObject(0).getString("id");
        String third = started.getJsonObject(1).getString("id");

        assertEquals(List.of(first), runsFound("key=" + enc(tag + "-order-1")));
        assertEquals(List.of(second), runsFound("key=" + enc(tag + "-order-2")), "a batch's run by its key");
        assertEquals(Set.of(first, second, third), Set.copyOf(runsFound("label=" + tag)));
        assertEquals(Set.of(first, third), Set.copyOf(runsFound("label=" + tag + "&label=vip")), "repeated labels: all of them");
        assertEquals(List.of(), runsFound("label=" + tag + "&label=nobody-has-this"));
        assertEquals(Set.of(first, second), Set.copyOf(runsFound("label=" + tag + "&payload.customer.id=42")),
                "42 finds the number 42 and the string \"42\"");
        assertEquals(List.of(third), runsFound("label=" + tag + "&payload.customer.id=43"));
        assertEquals(List.of(first), runsFound("payload.customer.name=" + enc("Ann Lee") + "&payload.url=" + tag),
                "two payload fields: both");
        assertEquals(List.of(), runsFound("payload.customer.name=Ann&payload.url=" + tag), "a value matches whole, not in part");

        JsonObject view = viewer.run(first);
        assertEquals(tag + "-order-1", view.getString("key"));
        assertEquals(List.of(tag, "vip"), labels(view));
        JsonObject listed = viewer.get("api/runs?key=" + enc(tag + "-order-1")).ok().json().getJsonArray("items").getJsonObject(0);
        assertEquals(List.of(tag, "vip"), labels(listed), "a list shows each run's labels");
    }

    @Test
    void searchCombinesWithTheListsFiltersAndPagination() {
        String tag = "t-" + UUID.randomUUID();
        List<String> started = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            started.add(started(operator.post("api/runs", run("{\"url\":\"" + tag + "/" + i + "\"}", "\"labels\":[\"" + tag + "\"]"))));
        }
        JsonObject page = viewer.get("api/runs?label=" + tag + "&limit=1&offset=1").ok().json();
        assertEquals(3, page.getInt("total"));
        assertEquals(List.of(started.get(1)), ids(viewer.get("api/runs?label=" + tag + "&limit=1&offset=1")), "newest first");
        assertEquals(3, viewer.get("api/runs?label=" + tag + "&pipeline=" + PIPELINE).ok().json().getInt("total"));
        assertEquals(0, viewer.get("api/runs?label=" + tag + "&pipeline=another").ok().json().getInt("total"));
        assertEquals(0, viewer.get("api/runs?label=" + tag + "&deadLettered=true").ok().json().getInt("total"));
    }

    @Test
    void aSearchMatchingMoreThanAThousandRunsCountsUpToAThousandAndSaysSo() {
        String tag = "t-" + UUID.randomUUID();
        String item = run("{\"url\":\"https://docs.example.org/faq.html\"}", "\"labels\":[\"" + tag + "\"]");
        assertEquals(201, operator.post("api/runs/batch", "{\"runs\":[" + String.join(",", java.util.Collections.nCopies(1_000, item)) + "]}")
                .status());
        JsonObject thousand = viewer.get("api/runs?label=" + tag + "&limit=1").ok().json();
        assertEquals(1_000, thousand.getInt("total"));
        assertFalse(thousand.containsKey("totalCapped"), "exactly 1 000: counted, not capped: " + thousand.keySet());
        started(operator.post("api/runs", item));
        JsonObject more = viewer.get("api/runs?label=" + tag + "&limit=1").ok().json();
        assertEquals(1_000, more.getInt("total"));
        assertTrue(more.getBoolean("totalCapped"), "1 001 match: at least 1 000, and the page says so");
        assertEquals(1, more.getJsonArray("items").size());
        assertEquals(1, viewer.get("api/runs?label=" + tag + "&limit=1&offset=1000").ok().json().getJsonArray("items").size(),
                "pages past the cap are still served");
        awaitStepQueuesDrained();
    }

    @Test
    void deadLettersAreFoundByTheirRunsKeyLabelAndPayload() {
        String tag = "t-" + UUID.randomUUID();
        String poison = started(operator.post("api/runs", run("{\"order\":{\"id\":\"" + tag + "\"},\"failures\":{\"fetch\":{\"mode\":\"permanent\"}}}",
                "\"key\":\"" + tag + "\",\"labels\":[\"" + tag + "\",\"eu\"]")));
        String healthy = started(operator.post("api/runs", run("{\"order\":{\"id\":\"" + tag + "\"}}", "\"labels\":[\"" + tag + "\"]")));
        awaitRun(poison, "DEAD_LETTERED");

        JsonObject byKey = viewer.get("api/dead-letters?key=" + tag).ok().json();
        assertEquals(1, byKey.getInt("total"), byKey.toString());
        JsonObject deadLetter = byKey.getJsonArray("items").getJsonObject(0);
        assertEquals(poison, deadLetter.getString("runId"));
        assertEquals(tag, deadLetter.getString("key"), "the list shows the run's key");
        assertEquals(List.of(tag, "eu"), labels(deadLetter));
        assertEquals(1, viewer.get("api/dead-letters?label=" + tag + "&label=eu").ok().json().getInt("total"));
        assertEquals(1, viewer.get("api/dead-letters?payload.order.id=" + tag).ok().json().getInt("total"),
                "the healthy run with the same payload field has no dead letter");
        assertEquals(1, viewer.get("api/dead-letters?payload.order.id=" + tag + "&reason=NON_RETRYABLE&open=true&pipeline=" + PIPELINE)
                .ok().json().getInt("total"), "with the list's own filters");
        assertEquals(0, viewer.get("api/dead-letters?key=" + tag + "&reason=STUCK_IN_PROGRESS").ok().json().getInt("total"));
        assertEquals(2, viewer.get("api/runs?payload.order.id=" + tag).ok().json().getInt("total"), healthy + " too");
        JsonObject detail = viewer.get("api/dead-letters/" + deadLetter.getJsonNumber("id").longValue()).ok().json();
        assertEquals(tag, detail.getString("key"), "the detail shows the run's key");
    }

    @Test
    void aUniqueKeyIsRefusedWhenARunOfThePipelineHasIt() {
        String key = "order-" + UUID.randomUUID();
        String first = started(operator.post("api/runs", run("{}", "\"key\":\"" + key + "\"")));
        assertRefused(() -> operator.post("api/runs", run("{}", "\"key\":\"" + key + "\",\"uniqueKey\":true")), 409, first);
        assertRefused(() -> operator.post("api/runs/batch", "{\"runs\":[" + run("{}", "") + ","
                + run("{}", "\"key\":\"" + key + "\",\"uniqueKey\":true") + "]}"), 409, "taken by run " + first);

        String other = "order-" + UUID.randomUUID();
        assertRefused(() -> operator.post("api/runs/batch", "{\"runs\":[" + run("{}", "\"key\":\"" + other + "\",\"uniqueKey\":true")
                + "," + run("{}", "\"key\":\"" + other + "\"") + "]}"), 409, "runs[0] and runs[1] both have key");
        Api.Response unique = operator.post("api/runs", run("{}", "\"key\":\"" + other + "\",\"uniqueKey\":true"));
        assertEquals(201, unique.status(), unique.body());
        assertRefused(() -> operator.post("api/runs", run("{}", "\"key\":\"" + other + "\",\"uniqueKey\":true")), 409,
                unique.json().getString("id"));
        assertEquals(List.of(unique.json().getString("id")), runsFound("key=" + other));

        // a retry of the very submission under its Idempotency-Key answers its run, not a conflict
        String third = "order-" + UUID.randomUUID();
        String submission = run("{}", "\"key\":\"" + third + "\",\"uniqueKey\":true");
        String idempotency = UUID.randomUUID().toString();
        Api.Response created = operator.post("api/runs", submission, "Idempotency-Key", idempotency);
        assertEquals(201, created.status(), created.body());
        Api.Response replayed = operator.post("api/runs", submission, "Idempotency-Key", idempotency);
        assertEquals(200, replayed.status(), replayed.body());
        assertEquals(created.json().getString("id"), replayed.json().getString("id"));
        assertEquals(third, replayed.json().getString("key"));
    }

    @Test
    void concurrentSubmissionsOfOneUniqueKeyStartExactlyOneRun() throws Exception {
        String key = "order-" + UUID.randomUUID();
        int clients = 8;
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<Api.Response>> answers = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                // every other one without uniqueKey: a unique submission must see them too
                String extra = "\"key\":\"" + key + "\"" + (i == 0 || i % 2 == 1 ? ",\"uniqueKey\":true" : "");
                answers.add(pool.submit(() -> {
                    go.await();
                    return operator.post("api/runs", run("{}", extra));
                }));
            }
            go.countDown();
            List<Integer> statuses = new ArrayList<>();
            for (Future<Api.Response> answer : answers) {
                Api.Response response = answer.get();
                assertTrue(response.status() == 201 || response.status() == 409, response.status() + " " + response.body());
                statuses.add(response.status());
            }
            List<String> uniqueCreated = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                if ((i == 0 || i % 2 == 1) && answers.get(i).get().status() == 201) {
                    uniqueCreated.add(answers.get(i).get().json().getString("id"));
                }
            }
            List<String> found = runsFound("key=" + key); // newest first
            assertEquals(statuses.stream().filter(s -> s == 201).count(), found.size(), "every run created is found: " + statuses);
            assertTrue(uniqueCreated.size() <= 1, "at most one unique submission succeeds: " + statuses);
            if (!uniqueCreated.isEmpty()) {
                assertEquals(uniqueCreated.get(0), found.get(found.size() - 1),
                        "a unique run is the first of its key: no run with it was started before");
            }
        } finally {
            pool.shutdownNow();
        }
        String only = "order-" + UUID.randomUUID();
        ExecutorService racers = Executors.newFixedThreadPool(clients);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Api.Response>> answers = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                answers.add(racers.submit(() -> {
                    start.await();
                    return operator.post("api/runs", run("{}", "\"key\":\"" + only + "\",\"uniqueKey\":true"));
                }));
            }
            start.countDown();
            List<Integer> statuses = answers.stream().map(SearchIT::get).map(Api.Response::status).sorted().toList();
            assertEquals(1, statuses.stream().filter(s -> s == 201).count(), "exactly one created: " + statuses);
            assertEquals(clients - 1, statuses.stream().filter(s -> s == 409).count(), "the others refused: " + statuses);
            assertEquals(1, runsFound("key=" + only).size());
        } finally {
            racers.shutdownNow();
        }
    }

    private static Api.Response get(Future<Api.Response> answer) {
        try {
            return answer.get();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void hostileSearchValuesAreRefusedWithA400OnBothLists() {
        List<String> hostile = List.of(
                "key=" + "k".repeat(201),
                "key=" + enc("a\u0001b"),
                "key=" + enc("a\u202eb"),
                "payload." + "p".repeat(10_000) + "=1",
                "payload.a.b.c.d.e.f.g.h.i=1",
                "payload.=1",
                "payload.a..b=1",
                "payload.a=",
                "payload." + enc("a'b") + "=1",
                "payload." + enc("a b") + "=1",
                "payload.a=" + "v".repeat(201),
                "payload.a=" + enc("x\u0000y"),
                "payload.a=1&payload.b=1&payload.c=1&payload.d=1&payload.e=1&payload.f=1",
                "label=" + enc("has space"),
                "label=" + enc("x'; drop table run; --"),
                "label=" + "l".repeat(101),
                java.util.stream.IntStream.range(0, 11).mapToObj(i -> "label=l" + i).collect(Collectors.joining("&")),
                "key=a&key=b",
                "payload.a=1&payload.a=2",
                "keys=a");
        for (String list : List.of("api/runs", "api/dead-letters")) {
            for (String query : hostile) {
                Api.Response response = viewer.get(list + "?" + query);
                assertEquals(400, response.status(), list + "?" + query.substring(0, Math.min(80, query.length())) + ": " + response.body());
                assertEquals("application/problem+json", response.contentType());
            }
            // SQL in a key is a key like any other: parameters, never SQL text
            Api.Response sqlish = viewer.get(list + "?key=" + enc("' or 1=1 --") + "&payload.a=" + enc("') or true --"));
            assertEquals(200, sqlish.status(), sqlish.body());
            assertEquals(0, sqlish.json().getInt("total"));
        }
    }

    @Test
    void hostileTagsOnSubmissionAreRefusedAndStoreNothing() {
        List<String> hostile = List.of(
                "\"key\":\"" + "k".repeat(201) + "\"",
                "\"key\":\"a\\u0007b\"",
                "\"key\":\"   \"",
                "\"key\":42",
                "\"labels\":\"vip\"",
                "\"labels\":[42]",
                "\"labels\":[\"has space\"]",
                "\"labels\":[\"" + "l".repeat(101) + "\"]",
                "\"labels\":[" + java.util.stream.IntStream.range(0, 21).mapToObj(i -> "\"l" + i + "\"").collect(Collectors.joining(",")) + "]",
                "\"uniqueKey\":true",
                "\"key\":\"k\",\"uniqueKey\":\"yes\"");
        for (String extra : hostile) {
            assertRefused(() -> operator.post("api/runs", run("{}", extra)), 400, "");
            assertRefused(() -> operator.post("api/runs/batch", "{\"runs\":[" + run("{}", "") + "," + run("{}", extra) + "]}"), 400,
                    "runs[1].");
        }
    }

    @Test
    void aPayloadJsonbCannotHoldStillStartsItsRun() {
        String tag = "t-" + UUID.randomUUID();
        Api.Response started = operator.post("api/runs", run("{\"nul\":\"a\\u0000b\",\"big\":1e400000}", "\"key\":\"" + tag + "\""));
        assertEquals(201, started.status(), started.body());
        assertEquals(List.of(started.json().getString("id")), runsFound("key=" + tag), "found by its key, not by its payload");
    }

    @Test
    void theSearchBoxOnEveryAdminPageFindsRunsAndDeadLetters() {
        String tag = "t-" + UUID.randomUUID();
        String poison = started(operator.post("api/runs", run("{\"customer\":{\"id\":\"" + tag + "\"},\"failures\":{\"fetch\":{\"mode\":\"permanent\"}}}",
                "\"key\":\"" + tag + "\",\"labels\":[\"box-" + tag.substring(2, 10) + "\"]")));
        awaitRun(poison, "DEAD_LETTERED");

        AdminPage page = new AdminPage(base);
        page.signIn("viewer", "viewer-pw");
        for (String each : List.of("admin/dashboard.xhtml", "admin/runs.xhtml", "admin/dead-letters.xhtml", "admin/steps.xhtml")) {
            String html = page.open(each).body();
            assertTrue(html.contains("admin/search.xhtml\" role=\"search\"") && html.contains("name=\"q\""), each + " has the search box");
        }
        for (String query : List.of(tag, "label:box-" + tag.substring(2, 10), "payload.customer.id=" + tag,
                tag + " label:box-" + tag.substring(2, 10))) {
            AdminPage.Answer answer = page.open("admin/search.xhtml?q=" + enc(query));
            assertEquals(200, answer.status());
            assertTrue(answer.body().contains("run.xhtml?id=" + poison), query + " finds the run: " + answer.body());
            assertTrue(answer.body().contains("id=\"dead-letter-count\">(1)"), query + " finds its dead letter");
        }
        AdminPage.Answer none = page.open("admin/search.xhtml?q=" + enc(tag + " label:nobody"));
        assertTrue(none.body().contains("No run matches."), none.body());

        for (String bad : List.of("payload.customer", "\"unclosed", "payload.=1", "a b", "label:has'quote", "x".repeat(1001))) {
            AdminPage.Answer answer = page.open("admin/search.xhtml?q=" + enc(bad));
            assertEquals(200, answer.status(), bad);
            assertTrue(answer.body().contains("Search not understood"), bad + ": " + answer.body());
            assertFalse(answer.body().contains("<script>"), "no inline script");
        }
        String runPage = page.open("admin/run.xhtml?id=" + poison).body();
        assertTrue(runPage.contains("id=\"run-key\""), "the run page shows the key");
        assertTrue(runPage.contains("box-" + tag.substring(2, 10)), "and the labels");
    }
}
