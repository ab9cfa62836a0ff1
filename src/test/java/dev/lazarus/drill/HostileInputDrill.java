package dev.lazarus.drill;

import static dev.lazarus.drill.DemoStack.log;

import dev.lazarus.it.Api;
import dev.lazarus.it.Broker;
import jakarta.jms.BytesMessage;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.ObjectMessage;
import jakarta.jms.TextMessage;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * The hostile input drill: bad requests over REST, and garbage, forged and stale messages dropped straight into
 * every step queue and every DLQ of the running demo stack. Each input must get the outcome the reference
 * documents ("Hostile input"), and nothing else may change: runs that were there before keep their state, a
 * run busy meanwhile completes, no dead letter appears that no input explains. It prints a table of every
 * input and its outcome, writes {@code target/drill/hostile.json} and exits non-zero on any mismatch.
 *
 * <pre>
 * mvn -Pdemo package
 * mvn -Pdrill-hostile test-compile exec:java
 * </pre>
 */
public final class HostileInputDrill {

    private static final String PIPELINE = "document-ingestion";
    private static final List<String> STEPS = List.of("fetch", "parse", "index");
    private static final String SCRIPT = "<script>alert('lazarus')</script>";
    private static final String SQL = "'); drop table run; --";

    private final DemoStack stack = new DemoStack();
    private final Broker broker = new Broker(Integer.getInteger("drill.broker.port", 61616));
    private final List<Check> checks = new ArrayList<>();
    /** JMS message id -> what must become of it. */
    private final Map<String, Expected> dropped = new LinkedHashMap<>();

    private record Check(String where, String input, String expected, String got, boolean ok) {
    }

    private record Expected(String where, String input, String queue, String reason, Class<? extends Message> kind) {
    }

    private HostileInputDrill() {
    }

    public static void main(String[] args) throws Exception {
        System.exit(new HostileInputDrill().drill());
    }

    private int drill() throws Exception {
        Instant started = Instant.now();
        log("hostile input drill: REST, %d step queues and their DLQs", STEPS.size());
        // the stack's own work first (the demo's runs on a fresh stack): its dead letters are not the drill's
        stack.awaitQuiet(Instant.now().plus(Duration.ofMinutes(2)));
        int deadLettersBefore = deadLetterTotal();
        String completed = completedRun();
        JsonObject completedBefore = stack.viewer.run(completed);
        String busy = stack.operator.startRun("{\"url\":\"bystander\",\"failures\":{\"parse\":{\"mode\":\"hang\",\"seconds\":20}}}");

        restInputs();
        for (String step : STEPS) {
            queueInputs(step, busy, completed);
            dlqInputs(step, completed);
        }
        int explained = awaitDeadLetters(Duration.ofMinutes(Long.getLong("drill.wait-minutes", 4)));
        stack.awaitQuiet(Instant.now().plus(Duration.ofMinutes(2)));

        // nothing else changed
        JsonObject completedAfter = stack.viewer.run(completed);
        for (String field : List.of("state", "generation", "requeueCount", "payload")) {
            JsonValue before = completedBefore.get(field);
            JsonValue after = completedAfter.get(field);
            record("bystanders", "a completed run that messages name", field + " unchanged", String.valueOf(after), before.equals(after));
        }
        JsonObject busyRun = stack.viewer.run(busy);
        List<String> holding = new ArrayList<>();
        stack.viewer.get("api/dead-letters?limit=100&runId=" + busy).ok().json().getJsonArray("items").forEach(v -> {
            String reason = v.asJsonObject().getString("reason");
            if (!reason.equals("UNKNOWN_STEP")) {
                holding.add(reason);
            }
        });
        record("bystanders", "a run busy in parse while messages name it", "COMPLETED; its only dead letters are the stray messages' (UNKNOWN_STEP)",
                busyRun.getString("state") + (holding.isEmpty() ? "" : ", dead letters " + holding),
                busyRun.getString("state").equals("COMPLETED") && holding.isEmpty());
        int created = deadLetterTotal() - deadLettersBefore;
        int expectedDeadLetters = dropped.size() + restDeadLetters;
        record("bystanders", "every dead letter the drill caused", expectedDeadLetters + " new dead letters, each explained by an input",
                created + " new, " + (explained + restDeadLetters) + " explained", created == expectedDeadLetters);

        return report(Duration.between(started, Instant.now()));
    }

    // ---- REST ----------------------------------------------------------------------------------------------

    /** Dead letters the REST inputs cause on purpose (a run whose payload carries script or SQL text, poisoned). */
    private int restDeadLetters;

    private void restInputs() throws Exception {
        Api operator = stack.operator;
        String start = "api/runs";
        refused("POST /api/runs", "not JSON", () -> operator.post(start, "{\"pipeline\": \"document-ingestion\", "), 400);
        refused("POST /api/runs", "invalid UTF-8 in a string", () -> operator.postBytes(start, "application/json",
                concat("{\"pipeline\":\"document-ingestion\",\"payload\":{\"url\":\"", new byte[] {(byte) 0xC3, (byte) 0x28}, "\"}}")), 400);
        refused("POST /api/runs", "a JSON array, not an object", () -> operator.post(start, "[1,2,3]"), 400);
        refused("POST /api/runs", "pipeline of the wrong type", () -> operator.post(start, "{\"pipeline\":42}"), 400);
        refused("POST /api/runs", "payload of the wrong type", () -> operator.post(start, "{\"pipeline\":\"document-ingestion\",\"payload\":\"x\"}"), 400);
        refused("POST /api/runs", "unknown pipeline", () -> operator.post(start, "{\"pipeline\":\"no-such-pipeline\",\"payload\":{}}"), 422);
        refused("POST /api/runs", "unknown pipeline named by script text",
                () -> operator.post(start, "{\"pipeline\":\"" + SCRIPT.replace("'", "\\u0027") + "\",\"payload\":{}}"), 422);
        refused("POST /api/runs", "payload of 70 000 bytes", () -> operator.post(start,
                "{\"pipeline\":\"document-ingestion\",\"payload\":{\"content\":\"" + "x".repeat(70_000) + "\"}}"), 413);
        refused("POST /api/runs", "a body of 12 MB, over the HTTP server's own limit", () -> operator.postDeclaringLength(start,
                "application/json", 12L * 1024 * 1024), 413);
        refused("POST /api/runs", "JSON nested 20 000 deep", () -> operator.post(start,
                "{\"pipeline\":\"document-ingestion\",\"payload\":{\"a\":" + "[".repeat(20_000) + "]".repeat(20_000) + "}}"), 400);
        refused("POST /api/runs", "a payload nested 150 deep (deeper than a step could wrap)", () -> operator.post(start,
                "{\"pipeline\":\"document-ingestion\",\"payload\":{\"a\":" + "[".repeat(150) + "]".repeat(150) + "}}"), 400);
        refused("POST /j_security_check", "a login form without a declared length (chunked)",
                () -> new Api(url(), null, null).postDeclaringLength("j_security_check", "application/x-www-form-urlencoded", -1), 411);
        refused("POST /api/runs", "text/plain instead of JSON", () -> operator.postAs(start, "text/plain", "{\"pipeline\":\"document-ingestion\"}"), 415);
        refused("POST /api/runs", "an Idempotency-Key with spaces", () -> operator.post(start, "{\"pipeline\":\"document-ingestion\"}",
                "Idempotency-Key", "not a key"), 400);
        refused("POST /api/runs", "no credentials", () -> new Api(url(), null, null).post(start, "{\"pipeline\":\"document-ingestion\"}"), 401);
        refused("POST /api/runs", "a viewer starting a run", () -> stack.viewer.post(start, "{\"pipeline\":\"document-ingestion\"}"), 403);
        refused("GET /api/runs", "state filter with SQL text", () -> stack.viewer.get("api/runs?state=" + enc("COMPLETED' OR 1=1 --")), 400);
        refused("GET /api/runs/{id}", "a run id that is SQL text", () -> stack.viewer.get("api/runs/" + enc("1 OR 1=1")), 404);
        refused("GET /api/runs/{id}", "a run that does not exist", () -> stack.viewer.get("api/runs/" + UUID.randomUUID()), 404);
        refused("POST /api/dead-letters/{id}/requeue", "a dead letter that does not exist",
                () -> operator.post("api/dead-letters/999999999/requeue", "{}"), 404);
        refused("POST /api/requeue-jobs", "a filter naming an unknown field", () -> operator.post("api/requeue-jobs",
                "{\"filter\":{\"reason\":\"MALFORMED_MESSAGE\",\"drop table\":\"x\"}}"), 400);

        answered("GET /api/runs", "pipeline filter with SQL text", stack.viewer.get("api/runs?pipeline=" + enc("x' OR '1'='1")),
                r -> r.status() == 200 && r.json().getInt("total") == 0, "200, no runs (the text is a value, not SQL)");
        answered("GET /api/dead-letters", "error-text filter with SQL text", stack.viewer.get("api/dead-letters?error=" + enc("%' OR 1=1 --")),
                r -> r.status() == 200 && r.json().getInt("total") == 0, "200, no dead letters (the text is a value, not SQL)");

        // Script and SQL text are data: stored as sent, answered as JSON strings, and escaped on the admin page.
        String sqlRun = operator.startRun("{\"url\":" + Json.createValue(SQL) + "}");
        String scriptRun = operator.startRun("{\"url\":" + Json.createValue(SCRIPT) + ",\"failures\":{\"parse\":{\"mode\":\"permanent\"}}}");
        restDeadLetters = 1;
        awaitState(sqlRun, "COMPLETED");
        awaitState(scriptRun, "DEAD_LETTERED");
        JsonObject sql = stack.viewer.run(sqlRun);
        record("POST /api/runs", "a payload of SQL text", "201, run completes, payload kept as sent",
                sql.getString("state") + ", url " + sql.getJsonObject("payload").getString("url", "?"),
                sql.getString("state").equals("COMPLETED") && SQL.equals(sql.getJsonObject("payload").getString("url", null)));
        JsonObject script = stack.viewer.run(scriptRun);
        long deadLetter = script.getJsonObject("deadLetter").getJsonNumber("id").longValue();
        String page = adminPage("admin/dead-letter.xhtml?id=" + deadLetter);
        record("admin page", "a dead letter whose payload is script text", "shown escaped, never as markup",
                page.contains(SCRIPT) ? "raw <script> in the page" : page.contains("&lt;script&gt;") ? "escaped" : "not shown",
                !page.contains(SCRIPT) && page.contains("&lt;script&gt;"));

        // every text has its limit, and past it (or with a control character) the answer names the field and stores nothing
        String actions = "api/dead-letters/" + deadLetter;
        int trail = stack.viewer.get(actions).ok().json().getJsonArray("history").size();
        refused("POST /api/dead-letters/{id}/resolve", "a note of 4 001 characters",
                () -> operator.post(actions + "/resolve", "{\"note\":\"" + "n".repeat(4001) + "\"}"), 400);
        refused("POST /api/dead-letters/{id}/notes", "a note with a NUL character",
                () -> operator.post(actions + "/notes", "{\"note\":\"a\\u0000b\"}"), 400);
        refused("POST /api/dead-letters/{id}/requeue", "an edited payload nested 150 deep", () -> operator.post(actions + "/requeue",
                "{\"payload\":{\"a\":" + "[".repeat(150) + "]".repeat(150) + "},\"note\":\"deep\"}"), 400);
        refused("POST /api/dead-letters/{id}/complete-step", "an output that is not an object",
                () -> operator.post(actions + "/complete-step", "{\"output\":[1],\"note\":\"x\"}"), 400);
        record("POST /api/dead-letters/{id}/...", "the refused actions above", "the dead letter unchanged, its run readable",
                "trail of " + stack.viewer.get(actions).ok().json().getJsonArray("history").size() + " (was " + trail + "), run "
                        + stack.viewer.get("api/runs/" + scriptRun).status(),
                stack.viewer.get(actions).ok().json().getJsonArray("history").size() == trail
                        && stack.viewer.get("api/runs/" + scriptRun).status() == 200);
        refused("POST /api/requeue-jobs", "a pipeline filter of 101 characters", () -> operator.post("api/requeue-jobs",
                "{\"filter\":{\"pipeline\":\"" + "p".repeat(101) + "\"}}"), 400);
        refused("POST /api/requeue-jobs", "a negative rate", () -> operator.post("api/requeue-jobs",
                "{\"filter\":{\"reason\":\"MALFORMED_MESSAGE\"},\"ratePerSecond\":-1}"), 400);
        refused("POST /api/bulk-jobs", "an action that is none", () -> operator.post("api/bulk-jobs",
                "{\"action\":\"purge\",\"filter\":{\"reason\":\"MALFORMED_MESSAGE\"},\"note\":\"x\"}"), 400);
        refused("POST /api/bulk-jobs", "a bulk discard without a note", () -> operator.post("api/bulk-jobs",
                "{\"action\":\"discard\",\"filter\":{\"reason\":\"MALFORMED_MESSAGE\"}}"), 400);
        refused("POST /api/bulk-jobs", "a bulk resolve with a note of 4 001 characters", () -> operator.post("api/bulk-jobs",
                "{\"action\":\"resolve\",\"filter\":{\"reason\":\"MALFORMED_MESSAGE\"},\"note\":\"" + "n".repeat(4001) + "\"}"), 400);
        for (String list : List.of("api/dead-letters", "api/dead-letters/causes", "api/requeue-jobs/dry-run", "api/bulk-jobs/dry-run?action=discard&",
                "api/runs", "api/staleness")) {
            String query = list.endsWith("&") ? list : list + "?";
            refused("GET /" + list.replaceAll("\\?.*", ""), "a NUL character in a filter value",
                    () -> stack.viewer.get(query + "pipeline=" + enc("a\u0000b")), 400);
        }
        String runs = adminPage("admin/runs.xhtml?state=BOGUS");
        record("admin page", "the run list filtered by a state that is none", "the list, with a message naming the states",
                runs.contains("state must be one of") ? "the message" : "no message", runs.contains("state must be one of"));
        String staleness = adminPage("admin/staleness.xhtml?health=BOGUS");
        record("admin page", "the staleness page filtered by a health that is none", "the list, with a message naming the healths",
                staleness.contains("health must be one of") ? "the message" : "no message", staleness.contains("health must be one of"));
        String stalenessOfNul = adminPage("admin/staleness.xhtml?pipeline=" + enc("a\u0000b"));
        record("admin page", "the staleness page filtered by a pipeline with a NUL character", "the list, with a message naming the field",
                stalenessOfNul.contains("control character") ? "the message" : "no message", stalenessOfNul.contains("control character"));
    }

    private void refused(String where, String input, java.util.function.Supplier<Api.Response> request, int status) {
        int runs = stack.totalRuns();
        Api.Response response;
        try {
            response = request.get();
        } catch (RuntimeException noAnswer) {
            record(where, input, status + " problem+json, nothing stored", "no answer: " + noAnswer.getMessage(), false);
            return;
        }
        boolean problem = response.contentType().startsWith("application/problem+json");
        int after = stack.totalRuns();
        String got = response.status() + (problem ? " problem+json" : " " + response.contentType())
                + (after == runs ? "" : ", " + (after - runs) + " runs stored");
        record(where, input, status + " problem+json, nothing stored", got, response.status() == status && problem && after == runs);
    }

    private void answered(String where, String input, Api.Response response, Predicate<Api.Response> ok, String expected) {
        record(where, input, expected, response.status() + " " + abbreviate(response.body()), ok.test(response));
    }

    // ---- step queues and DLQs ------------------------------------------------------------------------------

    private void queueInputs(String step, String busy, String completed) {
        String queue = "lazarus." + PIPELINE + "." + step;
        String other = STEPS.get((STEPS.indexOf(step) + 1) % STEPS.size());
        drop(queue, "text that is not JSON", "MALFORMED_MESSAGE", TextMessage.class, s -> s.createTextMessage("this is not a step message"));
        drop(queue, "bytes that are not UTF-8", "MALFORMED_MESSAGE", BytesMessage.class, s -> {
            BytesMessage bytes = s.createBytesMessage();
            bytes.writeBytes(new byte[] {(byte) 0xC3, (byte) 0x28, (byte) 0xFF, 0});
            return bytes;
        });
        drop(queue, "a map message shaped like a step message", "MALFORMED_MESSAGE", MapMessage.class, s -> {
            MapMessage map = s.createMapMessage();
            map.setString("runId", completed);
            map.setString("step", step);
            map.setLong("generation", 1);
            return map;
        });
        drop(queue, "a serialized Java object", "MALFORMED_MESSAGE", ObjectMessage.class,
                s -> s.createObjectMessage(new ArrayList<>(List.of("never", "deserialized"))));
        drop(queue, "2 MB of text", "MALFORMED_MESSAGE", TextMessage.class, s -> s.createTextMessage("z".repeat(2 * 1024 * 1024)));
        drop(queue, "a step message with fields of the wrong types", "MALFORMED_MESSAGE", TextMessage.class,
                s -> s.createTextMessage("{\"runId\":5,\"step\":true,\"generation\":\"one\"}"));
        drop(queue, "script text", "MALFORMED_MESSAGE", TextMessage.class, s -> s.createTextMessage(SCRIPT));
        drop(queue, "text with NUL characters", "MALFORMED_MESSAGE", TextMessage.class, s -> s.createTextMessage("nul\u0000in\u0000text"));
        drop(queue, "SQL text", "MALFORMED_MESSAGE", TextMessage.class, s -> s.createTextMessage(SQL));
        drop(queue, "a step message for a run that does not exist", "RUN_NOT_FOUND", TextMessage.class,
                s -> s.createTextMessage(stepMessage(UUID.randomUUID().toString(), step, 1)));
        drop(queue, "a step message naming a busy run and another step", "UNKNOWN_STEP", TextMessage.class,
                s -> s.createTextMessage(stepMessage(busy, other, 1)));
        drop(queue, "an old dispatch of a completed run", "STALE_MESSAGE", TextMessage.class,
                s -> s.createTextMessage(stepMessage(completed, step, 1)));
    }

    private void dlqInputs(String step, String completed) {
        String queue = "lazarus." + PIPELINE + "." + step;
        String dlq = "DLQ." + queue;
        drop(dlq, "text that is not JSON, into the DLQ", "MALFORMED_MESSAGE", TextMessage.class, s -> s.createTextMessage("forged " + SCRIPT));
        drop(dlq, "a step message of a completed run, into the DLQ", "STALE_MESSAGE", TextMessage.class,
                s -> s.createTextMessage(stepMessage(completed, step, 1)));
    }

    private void drop(String queue, String input, String reason, Class<? extends Message> kind, Broker.MessageMaker maker) {
        String id = broker.send(queue, maker);
        String stepQueue = queue.startsWith("DLQ.") ? queue.substring(4) : queue;
        dropped.put(id, new Expected(queue.startsWith("DLQ.") ? "DLQ." + shortName(stepQueue) : shortName(stepQueue), input, stepQueue, reason, kind));
    }

    private static String shortName(String queue) {
        return queue.substring(queue.lastIndexOf('.') + 1) + " queue";
    }

    private static String stepMessage(String runId, String step, long generation) {
        return Json.createObjectBuilder().add("runId", runId).add("step", step).add("generation", generation).build().toString();
    }

    /**
     * Waits until every dropped message has its dead letter, then checks each: the reason, the queue, its message
     * parked in the DLQ with the mark of that dead letter and the body it was sent with. Returns how many it found.
     */
    private int awaitDeadLetters(Duration timeout) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        Map<String, JsonObject> found = new HashMap<>();
        while (found.size() < dropped.size() && Instant.now().isBefore(deadline)) {
            JsonObject page = stack.viewer.get("api/dead-letters?limit=500").ok().json();
            page.getJsonArray("items").forEach(v -> {
                JsonObject deadLetter = v.asJsonObject();
                String messageId = deadLetter.getString("messageId", null);
                if (messageId != null && dropped.containsKey(messageId)) {
                    found.put(messageId, deadLetter);
                }
            });
            if (found.size() < dropped.size()) {
                Thread.sleep(2_000);
            }
        }
        for (Map.Entry<String, Expected> entry : dropped.entrySet()) {
            Expected expected = entry.getValue();
            JsonObject deadLetter = found.get(entry.getKey());
            String want = expected.reason + ", parked in DLQ." + shortName(expected.queue) + " as a " + expected.kind.getSimpleName();
            if (deadLetter == null) {
                record(expected.where, expected.input, want, "no dead letter within " + timeout.toSeconds() + " s", false);
                continue;
            }
            long id = deadLetter.getJsonNumber("id").longValue();
            List<Message> parked = broker.browse("DLQ." + expected.queue, "lazarusDeadLetterId = " + id);
            String kind = parked.size() == 1 ? kindOf(parked.get(0)) : parked.size() + " parked messages";
            String got = deadLetter.getString("reason") + ", parked in DLQ." + shortName(expected.queue) + " as a " + kind;
            record(expected.where, expected.input, want, got, got.equals(want) && expected.queue.equals(deadLetter.getString("queue", "")));
        }
        return found.size();
    }

    private static String kindOf(Message message) {
        for (Class<? extends Message> kind : List.of(TextMessage.class, BytesMessage.class, MapMessage.class, ObjectMessage.class)) {
            if (kind.isInstance(message)) {
                return kind.getSimpleName();
            }
        }
        return message.getClass().getSimpleName();
    }

    // ---- helpers -------------------------------------------------------------------------------------------

    private String completedRun() throws InterruptedException {
        String run = stack.operator.startRun("{\"url\":\"bystander-completed\"}");
        awaitState(run, "COMPLETED");
        return run;
    }

    private void awaitState(String run, String state) throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
        while (!stack.viewer.run(run).getString("state").equals(state)) {
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("run " + run + " did not reach " + state);
            }
            Thread.sleep(250);
        }
    }

    private int deadLetterTotal() {
        return stack.viewer.get("api/dead-letters?limit=1").ok().json().getInt("total");
    }

    /** An admin page's HTML, logged in as the viewer through the login form. */
    private String adminPage(String path) throws IOException, InterruptedException {
        HttpClient browser = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).cookieHandler(new CookieManager()).followRedirects(HttpClient.Redirect.NORMAL).build();
        URI base = URI.create(url().toString());
        browser.send(HttpRequest.newBuilder(base.resolve(path)).build(), HttpResponse.BodyHandlers.discarding());
        browser.send(HttpRequest.newBuilder(base.resolve("j_security_check"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("j_username=viewer&j_password=viewer-pw")).build(), HttpResponse.BodyHandlers.discarding());
        return browser.send(HttpRequest.newBuilder(base.resolve(path)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private static java.net.URL url() {
        try {
            return URI.create(System.getProperty("drill.url", "http://127.0.0.1:8080/lazarus/")).toURL();
        } catch (java.net.MalformedURLException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static byte[] concat(String head, byte[] middle, String tail) {
        byte[] start = head.getBytes(StandardCharsets.UTF_8);
        byte[] end = tail.getBytes(StandardCharsets.UTF_8);
        byte[] all = new byte[start.length + middle.length + end.length];
        System.arraycopy(start, 0, all, 0, start.length);
        System.arraycopy(middle, 0, all, start.length, middle.length);
        System.arraycopy(end, 0, all, start.length + middle.length, end.length);
        return all;
    }

    private static String enc(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    private static String abbreviate(String text) {
        String flat = text == null ? "" : text.replaceAll("\\s+", " ");
        return flat.length() > 80 ? flat.substring(0, 80) + "…" : flat;
    }

    private void record(String where, String input, String expected, String got, boolean ok) {
        checks.add(new Check(where, input, expected, got, ok));
    }

    private int report(Duration took) throws IOException {
        long failed = checks.stream().filter(c -> !c.ok).count();
        System.out.println();
        System.out.println("| where | input | expected | got | |");
        System.out.println("|---|---|---|---|---|");
        for (Check check : checks) {
            System.out.printf("| %s | %s | %s | %s | %s |%n", check.where, check.input, check.expected, abbreviate(check.got).replace("|", "\\|"),
                    check.ok ? "ok" : "**WRONG**");
        }
        System.out.println();
        System.out.printf("| inputs checked | as documented | wrong | time |%n|---|---|---|---|%n| %d | %d | %d | %d s |%n%n",
                checks.size(), checks.size() - failed, failed, took.toSeconds());
        var rows = Json.createArrayBuilder();
        checks.forEach(c -> rows.add(Json.createObjectBuilder().add("where", c.where).add("input", c.input)
                .add("expected", c.expected).add("got", c.got).add("ok", c.ok)));
        Path out = stack.repo.resolve("target/drill/hostile.json");
        Files.createDirectories(out.getParent());
        Files.writeString(out, Json.createObjectBuilder().add("drill", "hostile").add("checked", checks.size())
                .add("wrong", failed).add("seconds", took.toSeconds()).add("checks", rows).build().toString());
        log("wrote %s", stack.repo.relativize(out));
        log(failed == 0 ? "passed: every input got its documented outcome, nothing else changed" : "FAILED: %d inputs got another outcome", failed);
        return failed == 0 ? 0 : 1;
    }
}
