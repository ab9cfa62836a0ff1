package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.it.FuzzClient.Outcome;
import dev.lazarus.it.HostileValues.Body;
import dev.lazarus.it.HostileValues.Value;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A fuzz test over the whole API: every operation the served OpenAPI document lists is called as a viewer and as an
 * operator with hostile values ({@link HostileValues}: empty, huge, deep, of the wrong type, control characters,
 * overflowing numbers, unknown fields...) for each of its path, query and header parameters and, for an action, for
 * each field of the body it expects (an operator's; a viewer's action is refused before its body is read) and as whole
 * bodies. Every request must be answered within
 * {@link FuzzClient#LIMIT} without a 5xx; a refused one (4xx) must have stored nothing (no run, no bulk job, no
 * change to the dead letter it named or its run); what an accepted one touched must still be readable; and the
 * server must answer at the end. All failures are collected and reported together.
 * <p>
 * Runs on Jupiter in the Arquillian deployment like the other black-box tests; the values drawn at random come from a
 * fixed seed ({@code -Dfuzz.seed=} for another), so a failure reproduces. It shares the server with the other tests,
 * so it acts only on what is its own: the dead letters its actions need are of its own runs (demo runs that fail until
 * requeued, made ahead in batches, each action on an open one), every bulk job it starts is bounded to match
 * nothing, and at the end every run it started has settled and every dead letter they left open is discarded.
 */
class ApiFuzzIT extends LazarusIT {

    private static final long SEED = Long.getLong("fuzz.seed", 20_261_124L);
    private static final String PIPELINE = "document-ingestion";
    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "patch", "head", "options");
    private static final Set<String> LIVE = Set.of("PENDING", "IN_PROGRESS", "RETRYING");
    private static final Set<String> OPEN = Set.of("PENDING", "INVESTIGATING");
    private static final String VALID = "a valid request";
    /** Slots inside a payload: data a run carries, any JSON; they get fewer values (each accepted one closes a dead letter). */
    private static final Set<String> DATA = Set.of("payload.url", "runs[0].payload.url", "output.content");
    private static final Pattern INCIDENT = Pattern.compile("incident ([0-9a-f-]{36})");
    private static final Pattern SLOT = Pattern.compile("\\$\\{([^}]+)}");
    private static final Pattern DEAD_LETTER_ACTION = Pattern.compile("POST /api/dead-letters/\\{id}/([a-z-]+)");

    /** The one action on a run: its valid request stops a run of the test's own that is busy in a step for a while. */
    private static final String STOP = "POST /api/runs/{id}/stop";

    /** The operations that start a bulk job, and the fields their bodies take. */
    private static final Map<String, Set<String>> JOB_FIELDS = Map.of("POST /api/requeue-jobs", Set.of("filter", "ratePerSecond"),
            "POST /api/bulk-jobs", Set.of("action", "filter", "ratePerSecond", "note"));

    /** Query parameters an operation needs in a valid request: every case of its walk has them, unless it varies them. */
    private static final Map<String, String> REQUIRED_QUERY = Map.of("GET /api/bulk-jobs/dry-run", "action=discard");

    /** A cause (a fingerprint's form) that no dead letter has: it bounds a requeue job to nothing. */
    private static final String NO_CAUSE = "0123456789abcdef";

    /** Marks the test's payloads and filters; the bulk jobs it starts match no error text but this. */
    private final String marker = "api-fuzz-" + SEED;

    private final Random random = new Random(SEED);
    private final HostileValues hostile = new HostileValues(random);
    private final List<Failure> failures = new ArrayList<>();
    private final Map<String, Map<Integer, Integer>> statuses = new TreeMap<>();
    private final Map<String, Long> seconds = new TreeMap<>();
    /** Every action the API took (for the report file: what it accepts is worth a look even when it answers well). */
    private final List<String> acceptedActions = new ArrayList<>();
    private final Set<String> exercised = new LinkedHashSet<>();
    /** Every run the test started, to see them settle, read them afterwards and tidy up their dead letters. */
    private final Set<String> runs = new LinkedHashSet<>();
    private final Set<String> brokenAfterwards = new LinkedHashSet<>();

    private FuzzClient client;
    private Caller asOperator;
    private Caller asViewer;
    private Pool parseDeadLetters;
    private Pool indexDeadLetters;
    private String completedRun;
    /** The run the operator's walk of {@link #STOP} acts on: live when the walk starts (its first request stops it). */
    private String runToStop;
    private long job;
    private Map<String, Template> templates;
    private int requests;
    private String phases = "";
    private int skipped;
    /** The run count and bulk jobs as last read, null once an accepted action may have changed them. */
    private Snapshot global;

    private record Caller(String name, String authorization) {
    }

    private record Parameter(String name, String in) {
    }

    /** One operation of the document; {@code key} is its method and its path below the context root. */
    private record Operation(String method, String path, String key, List<Parameter> parameters) {

        boolean acts() {
            return !method.equals("GET") && !method.equals("HEAD") && !method.equals("OPTIONS");
        }

        List<Parameter> in(String where) {
            return parameters.stream().filter(p -> p.in().equals(where)).toList();
        }

        /** The action's name for an action on one dead letter (notes, requeue...), else null. */
        String deadLetterAction() {
            Matcher action = DEAD_LETTER_ACTION.matcher(key);
            return action.matches() ? action.group(1) : null;
        }
    }

    /**
     * One request of the walk: what it tries (for the report) and how it differs from a valid request; {@code closed}
     * sends it about a dead letter that is closed already.
     */
    private record Case(String input, Map<String, String> path, String query, Map<String, String> headers, Body body, boolean closed) {
    }

    private record Failure(String kind, String operation, String caller, String input, String outcome) {

        @Override
        public String toString() {
            return operation + " as " + caller + ", " + input + ": " + outcome;
        }
    }

    /** What a refused request must leave as it was. */
    private record Snapshot(long runs, String jobs, String deadLetter, String run) {

        String differences(Snapshot after) {
            List<String> changed = new ArrayList<>();
            if (runs != after.runs) {
                changed.add("runs " + runs + " -> " + after.runs);
            }
            if (!jobs.equals(after.jobs)) {
                changed.add("bulk jobs [" + jobs + "] -> [" + after.jobs + "]");
            }
            if (!deadLetter.equals(after.deadLetter)) {
                changed.add("dead letter " + deadLetter + " -> " + after.deadLetter);
            }
            if (!run.equals(after.run)) {
                changed.add("its run " + run + " -> " + after.run);
            }
            return String.join("; ", changed);
        }
    }

    /** A body an action accepts, with ${slot} where the walk puts a hostile value; the defaults fill every other slot. */
    private record Template(String text, Map<String, String> defaults) {

        String valid() {
            return fill(text, null, null);
        }

        String with(String slot, String value) {
            return fill(text, slot, value);
        }

        /** Slots that are members of the body itself. */
        List<String> members() {
            List<String> members = new ArrayList<>();
            Matcher slot = SLOT.matcher(text);
            while (slot.find()) {
                members.add(slot.group(1));
            }
            return members;
        }

        private String fill(String text, String slot, String value) {
            Matcher found = SLOT.matcher(text);
            StringBuilder filled = new StringBuilder();
            while (found.find()) {
                String name = found.group(1);
                found.appendReplacement(filled, Matcher.quoteReplacement(name.equals(slot) ? value : fill(defaults.get(name), slot, value)));
            }
            return found.appendTail(filled).toString();
        }
    }

    @Test
    void everyOperationAnswersHostileInputWithoutAServerErrorAndARefusalStoresNothing() {
        Instant started = Instant.now();
        client = new FuzzClient(base);
        asOperator = new Caller("operator", FuzzClient.basic("operator", "operator-pw"));
        asViewer = new Caller("viewer", FuzzClient.basic("viewer", "viewer-pw"));
        List<Operation> operations = operations();
        assertFalse(operations.isEmpty(), "the OpenAPI document lists no operation");

        startFixtures();
        Duration fixtures = Duration.between(started, Instant.now());
        templates = templates();
        templates.keySet().stream().filter(key -> operations.stream().noneMatch(op -> op.key().equals(key)))
                .forEach(key -> failures.add(new Failure("outdated test", key, "-", "the body this test sends", "the document lists no such operation")));
        for (Operation operation : operations) {
            walk(operation, asViewer);
            walk(operation, asOperator);
        }
        operations.stream().filter(op -> !exercised.contains(op.key()))
                .forEach(op -> failures.add(new Failure("not exercised", op.key(), "-", "-", "no request was sent")));
        Instant walked = Instant.now();
        tidyUp();
        phases = String.format("fixtures %d s, walk %d s, tidying up %d s", fixtures.toSeconds(),
                Duration.between(started, walked).minus(fixtures).toSeconds(), Duration.between(walked, Instant.now()).toSeconds());
        Api.Response stillThere = viewer.get("api/runs?limit=1");
        if (stillThere.status() != 200) {
            failures.add(new Failure("server gone", "GET /api/runs", "viewer", "after the walk", stillThere.status() + " " + stillThere.body()));
        }
        String report = report(Duration.between(started, Instant.now()));
        write(report + String.format("%n== actions accepted (%d) ==%n  ", acceptedActions.size()) + String.join("\n  ", acceptedActions) + "\n");
        assertTrue(failures.isEmpty(), report);
    }

    // ---- the operations -------------------------------------------------------------------------------------

    private List<Operation> operations() {
        Api.Response document = new Api(root(), null, null).get("openapi?format=JSON");
        assertEquals(200, document.status(), "the OpenAPI document: " + document.body());
        String context = base.getPath().replaceAll("/$", "");
        List<Operation> operations = new ArrayList<>();
        document.json().getJsonObject("paths").forEach((path, item) -> {
            List<Parameter> shared = parameters(item.asJsonObject().get("parameters"));
            item.asJsonObject().forEach((method, operation) -> {
                if (METHODS.contains(method)) {
                    List<Parameter> parameters = new ArrayList<>(shared);
                    parameters.addAll(parameters(operation.asJsonObject().get("parameters")));
                    String below = path.startsWith(context + "/") ? path.substring(context.length()) : path;
                    operations.add(new Operation(method.toUpperCase(Locale.ROOT), path, method.toUpperCase(Locale.ROOT) + " " + below, parameters));
                }
            });
        });
        return operations;
    }

    private static List<Parameter> parameters(JsonValue listed) {
        return listed instanceof JsonArray array ? array.stream().map(JsonValue::asJsonObject)
                .map(p -> new Parameter(p.getString("name"), p.getString("in"))).toList() : List.of();
    }

    // ---- fixtures: a completed run, dead letters to act on, a requeue job -----------------------------------

    private void startFixtures() {
        completedRun = operator.startRun("{\"url\":\"https://example.org/fuzz-completed\",\"fuzz\":\"" + marker + "\"}");
        runs.add(completedRun);
        parseDeadLetters = new Pool("parse");
        indexDeadLetters = new Pool("index");
        // about as many as the walk closes, made at once: each dead letter takes a few seconds of retries
        var parse = parseDeadLetters.start(220);
        var index = indexDeadLetters.start(40);
        parseDeadLetters.await(parse);
        indexDeadLetters.await(index);
        awaitRun(completedRun, "COMPLETED");
        Api.Response started = operator.post("api/requeue-jobs", "{\"filter\":{\"runId\":\"" + completedRun + "\",\"error\":\"" + marker
                + "\"},\"ratePerSecond\":0}");
        assertEquals(202, started.status(), "a requeue job to fuzz: " + started.body());
        job = started.json().getJsonNumber("id").longValue();
    }

    /** Dead letters of the test's own runs that fail at {@code step} until they are requeued. */
    private final class Pool {

        private final String step;
        private final List<Fixture> fixtures = new ArrayList<>();

        Pool(String step) {
            this.step = step;
        }

        /** An open one, one under investigation first (so the pending ones last for investigate); {@code pending}: only those. */
        Fixture open(boolean pending) {
            for (String status : pending ? List.of("PENDING") : List.of("INVESTIGATING", "PENDING")) {
                for (Fixture fixture : fixtures) {
                    if (fixture.status.equals(status)) {
                        return fixture;
                    }
                }
            }
            grow(50);
            return open(pending);
        }

        Fixture closed() {
            return fixtures.stream().filter(f -> !OPEN.contains(f.status) && !f.status.startsWith("unreadable")).findFirst().orElse(null);
        }

        void grow(int count) {
            await(start(count));
        }

        /** Starts {@code count} runs that will be dead-lettered at the pool's step; returns their ids and when. */
        Map.Entry<Instant, Set<String>> start(int count) {
            Instant since = Instant.now().minusSeconds(2);
            String item = "{\"pipeline\":\"" + PIPELINE + "\",\"payload\":{\"url\":\"https://example.org/fuzz-fixture\",\"fuzz\":\"" + marker
                    + "\",\"failures\":{\"" + step + "\":{\"mode\":\"until-requeued\"}}}}";
            Api.Response started = operator.post("api/runs/batch", "{\"runs\":[" + String.join(",", Collections.nCopies(count, item)) + "]}");
            assertEquals(201, started.status(), "runs to dead-letter: " + started.body());
            Set<String> ids = started.json().getJsonArray("runs").stream().map(r -> r.asJsonObject().getString("id")).collect(Collectors.toSet());
            runs.addAll(ids);
            forgetSnapshots(); // there are more runs now
            return Map.entry(since, ids);
        }

        void await(Map.Entry<Instant, Set<String>> started) {
            Set<String> ids = started.getValue();
            List<JsonObject> deadLetters = Await.until(ids.size() + " runs to be dead-lettered at " + step, Duration.ofSeconds(120),
                    () -> viewer.get("api/dead-letters?open=true&limit=500&step=" + step + "&from=" + started.getKey()).ok().json()
                            .getJsonArray("items").stream().map(JsonValue::asJsonObject).filter(d -> ids.contains(d.getString("runId"))).toList(),
                    found -> found.size() == ids.size());
            deadLetters.forEach(d -> fixtures.add(new Fixture(d.getJsonNumber("id").longValue(), d.getString("runId"), d.getString("status"))));
        }
    }

    /** One of the test's dead letters: its status and what a refused request must leave of it, as last read. */
    private static final class Fixture {

        final long id;
        final String runId;
        String status;
        Snapshot cached;

        Fixture(long id, String runId, String status) {
            this.id = id;
            this.runId = runId;
            this.status = status;
        }
    }

    // ---- the bodies the actions expect ----------------------------------------------------------------------

    private Map<String, Template> templates() {
        Map<String, Template> bodies = new LinkedHashMap<>();
        String note = quoted("api fuzz: why");
        bodies.put("POST /api/runs", template("{\"pipeline\":${pipeline},\"payload\":${payload}}", "pipeline", quoted(PIPELINE),
                "payload", "{\"url\":${payload.url},\"fuzz\":\"" + marker + "\"}", "payload.url", quoted("https://example.org/fuzz")));
        bodies.put("POST /api/runs/batch", template("{\"runs\":${runs}}", "runs", "[${runs[0]}]",
                "runs[0]", "{\"pipeline\":${runs[0].pipeline},\"payload\":${runs[0].payload}}", "runs[0].pipeline", quoted(PIPELINE),
                "runs[0].payload", "{\"url\":${runs[0].payload.url},\"fuzz\":\"" + marker + "\"}",
                "runs[0].payload.url", quoted("https://example.org/fuzz-batch")));
        bodies.put(STOP, template("{\"note\":${note}}", "note", note));
        bodies.put("POST /api/steps/{pipeline}/{step}/pause", template("{\"note\":${note}}", "note", note));
        bodies.put("POST /api/steps/{pipeline}/{step}/resume", template("{\"note\":${note}}", "note", note));
        for (String action : List.of("investigate", "notes", "resolve", "discard", "skip-step")) {
            bodies.put("POST /api/dead-letters/{id}/" + action, template("{\"note\":${note}}", "note", note));
        }
        bodies.put("POST /api/dead-letters/{id}/requeue", template("{\"payload\":${payload},\"note\":${note}}",
                "payload", "{\"url\":${payload.url},\"fuzz\":\"" + marker + "\"}", "payload.url", quoted("https://example.org/fuzz-edited"),
                "note", note));
        bodies.put("POST /api/dead-letters/{id}/complete-step", template("{\"output\":${output},\"note\":${note}}",
                "output", "{\"url\":\"https://example.org/fuzz-output\",\"content\":${output.content},\"fuzz\":\"" + marker + "\"}",
                "output.content", quoted("done by hand"), "note", note));
        // every field restricts the job to nothing: the run named has no open dead letter, and no error reads like the marker
        bodies.put("POST /api/requeue-jobs", template("{\"filter\":${filter},\"ratePerSecond\":${ratePerSecond}}",
                "filter", "{\"runId\":${filter.runId},\"error\":${filter.error},\"cause\":${filter.cause},\"reason\":${filter.reason},"
                        + "\"status\":${filter.status},\"pipeline\":${filter.pipeline},\"step\":${filter.step},\"from\":${filter.from},"
                        + "\"to\":${filter.to}}",
                "filter.runId", quoted(completedRun), "filter.error", quoted(marker), "filter.cause", quoted(NO_CAUSE),
                "filter.reason", quoted("RETRIES_EXHAUSTED"), "filter.status", quoted("PENDING"), "filter.pipeline", quoted(PIPELINE),
                "filter.step", quoted("parse"), "filter.from", quoted("2020-01-01T00:00:00Z"), "filter.to", quoted("2100-01-01T00:00:00Z"),
                "ratePerSecond", "0"));
        // the same bounds; discard is the action that closes for good, so the one whose refusals matter most
        bodies.put("POST /api/bulk-jobs", template("{\"action\":${action},\"filter\":${filter},\"ratePerSecond\":${ratePerSecond},"
                        + "\"note\":${note}}",
                "action", quoted("discard"), "note", note,
                "filter", "{\"runId\":${filter.runId},\"error\":${filter.error},\"cause\":${filter.cause},\"reason\":${filter.reason},"
                        + "\"status\":${filter.status},\"pipeline\":${filter.pipeline},\"step\":${filter.step},\"from\":${filter.from},"
                        + "\"to\":${filter.to}}",
                "filter.runId", quoted(completedRun), "filter.error", quoted(marker), "filter.cause", quoted(NO_CAUSE),
                "filter.reason", quoted("RETRIES_EXHAUSTED"), "filter.status", quoted("PENDING"), "filter.pipeline", quoted(PIPELINE),
                "filter.step", quoted("parse"), "filter.from", quoted("2020-01-01T00:00:00Z"), "filter.to", quoted("2100-01-01T00:00:00Z"),
                "ratePerSecond", "0"));
        // a webhook that is never called: disabled, wanting only holds (off in the tests), at an address nothing answers
        String webhook = "{\"url\":${url},\"secret\":${secret},\"types\":${types},\"enabled\":${enabled}}";
        bodies.put("POST /api/webhooks", template("{\"name\":${name}," + webhook.substring(1), "name", quoted("fuzz-created"),
                "url", quoted(FUZZ_WEBHOOK_URL), "secret", quoted("fuzz-secret-0123456789"), "types", "[\"held\"]", "enabled", "false"));
        bodies.put("PUT /api/webhooks/{name}", template(webhook, "url", quoted(FUZZ_WEBHOOK_URL), "secret", quoted("fuzz-secret-0123456789"),
                "types", "[\"held\"]", "enabled", "false"));
        return bodies;
    }

    private static final String FUZZ_WEBHOOK = "fuzz-webhook";
    private static final String FUZZ_WEBHOOK_URL = "http://127.0.0.1:9/fuzz";

    /** The webhook the operations on {@code /api/webhooks/{name}} name, made again if a valid DELETE removed it. */
    private String fuzzWebhook() {
        if (viewer.get("api/webhooks/" + FUZZ_WEBHOOK).status() == 404) {
            operator.post("api/webhooks", "{\"name\":\"" + FUZZ_WEBHOOK + "\",\"url\":\"" + FUZZ_WEBHOOK_URL
                    + "\",\"secret\":\"fuzz-secret-0123456789\",\"types\":[\"held\"],\"enabled\":false}");
        }
        return FUZZ_WEBHOOK;
    }

    private static Template template(String text, String... defaults) {
        Map<String, String> slots = new LinkedHashMap<>();
        for (int i = 0; i < defaults.length; i += 2) {
            slots.put(defaults[i], defaults[i + 1]);
        }
        return new Template(text, slots);
    }

    private static String quoted(String value) {
        return HostileValues.jsonString(value);
    }

    /**
     * A requeue job this body would start unbounded (every open dead letter on the server, other tests' too): a valid
     * request, not a hostile one, so the operator does not send it. Every field of the template bounds the job alone.
     */
    private boolean startsAnUnboundedJob(Operation operation, byte[] body) {
        Set<String> fields = JOB_FIELDS.get(operation.key());
        if (fields == null) {
            return false;
        }
        try (var reader = Json.createReader(new StringReader(new String(body, StandardCharsets.UTF_8)))) {
            if (!(reader.readValue() instanceof JsonObject request) || !fields.containsAll(request.keySet())) {
                return false;
            }
            if (!(request.getOrDefault("filter", JsonValue.EMPTY_JSON_OBJECT) instanceof JsonObject filter)) {
                return false;
            }
            return !(isString(filter, "runId", completedRun) || isString(filter, "error", marker) || isString(filter, "cause", NO_CAUSE));
        } catch (RuntimeException notJson) {
            return false;
        }
    }

    private static boolean isString(JsonObject object, String name, String value) {
        return object.get(name) instanceof JsonString string && string.getString().equals(value);
    }

    // ---- the walk -------------------------------------------------------------------------------------------

    /**
     * Every case for the operation. A viewer's action is refused before its body is read, so a viewer is not sent each
     * field's every hostile value (a thousand requests an action, a minute of CI in all): the whole-body ones, the path's,
     * the query's and the headers' still are.
     */
    private List<Case> cases(Operation operation, Caller caller) {
        Template template = templates.get(operation.key());
        Body valid = !operation.acts() ? null : Body.json("", template == null ? "" : template.valid());
        List<Case> cases = new ArrayList<>();
        cases.add(new Case(VALID, Map.of(), "", Map.of(), valid, false));
        for (Parameter parameter : operation.in("path")) {
            for (Value value : hostile.parameters()) {
                cases.add(new Case("path " + parameter.name() + " = " + value.label(), Map.of(parameter.name(), value.text()), "", Map.of(), valid, false));
            }
            for (String id : List.of("00000000-0000-0000-0000-000000000000", "1 OR 1=1", "0b7e8e6e-0000-4000-8000-00000000000G")) {
                cases.add(new Case("path " + parameter.name() + " = " + HostileValues.label(id), Map.of(parameter.name(), HostileValues.percentEncoded(id)),
                        "", Map.of(), valid, false));
            }
        }
        List<Parameter> query = operation.in("query");
        for (Parameter parameter : query) {
            for (Value value : hostile.parameters()) {
                cases.add(new Case("query " + parameter.name() + " = " + value.label(), Map.of(), parameter.name() + "=" + value.text(), Map.of(), valid, false));
            }
        }
        for (int i = 0; i < 3 && !query.isEmpty(); i++) {
            List<Value> picked = query.stream().map(p -> hostile.parameters().get(random.nextInt(hostile.parameters().size()))).toList();
            cases.add(new Case("query " + IntStream.range(0, query.size())
                    .mapToObj(n -> query.get(n).name() + " = " + picked.get(n).label()).collect(Collectors.joining(", ")),
                    Map.of(), IntStream.range(0, query.size()).mapToObj(n -> query.get(n).name() + "=" + picked.get(n).text())
                            .collect(Collectors.joining("&")), Map.of(), valid, false));
        }
        cases.add(new Case("query parameter the operation does not know", Map.of(), "fuzzUnknown=1", Map.of(), valid, false));
        for (Parameter parameter : operation.in("header")) {
            for (Value value : hostile.parameters()) {
                // a line break would end the header: that is another request, not a value
                if (value.raw() != null && value.raw().chars().noneMatch(c -> c == '\r' || c == '\n')) {
                    cases.add(new Case("header " + parameter.name() + " = " + value.label(), Map.of(), "", Map.of(parameter.name(), value.raw()), valid, false));
                }
            }
        }
        if (operation.acts()) {
            if (template != null && caller == asOperator) {
                for (String slot : template.defaults().keySet()) {
                    for (Value value : DATA.contains(slot) ? hostile.data() : hostile.fields()) {
                        cases.add(new Case("body " + slot + " = " + value.label(), Map.of(), "", Map.of(), Body.json("", template.with(slot, value.text())), false));
                    }
                }
                String body = template.valid();
                cases.add(new Case("body with an unknown field", Map.of(), "", Map.of(), Body.json("", "{\"fuzzUnknown\":1," + body.substring(1)), false));
                for (String member : template.members()) {
                    cases.add(new Case("body with " + member + " twice, the second a number", Map.of(), "", Map.of(),
                            Body.json("", body.substring(0, body.length() - 1) + ",\"" + member + "\":123}"), false));
                }
            }
            hostile.bodies().forEach(b -> cases.add(new Case(b.label(), Map.of(), "", Map.of(), b, false)));
            if (operation.deadLetterAction() != null) {
                // the same about a dead letter already closed: the refusal of the action must come as cleanly
                cases.add(new Case("a valid request about a closed dead letter", Map.of(), "", Map.of(), valid, true));
                for (String slot : template == null || caller != asOperator ? List.<String>of() : template.defaults().keySet()) {
                    for (Value value : hostile.fields()) {
                        if (value.label().contains("chars)") || value.label().contains("\\u0000")) {
                            cases.add(new Case("body " + slot + " = " + value.label() + " about a closed dead letter", Map.of(), "", Map.of(),
                                    Body.json("", template.with(slot, value.text())), true));
                        }
                    }
                }
            }
        }
        String required = REQUIRED_QUERY.get(operation.key());
        if (required != null) {
            String name = required.substring(0, required.indexOf('=') + 1);
            cases.replaceAll(c -> ("&" + c.query()).contains("&" + name) ? c : new Case(c.input(), c.path(),
                    c.query().isEmpty() ? required : c.query() + "&" + required, c.headers(), c.body(), c.closed()));
        }
        return cases;
    }

    /**
     * Sends every case of the operation as the caller. An operator's action is checked request by request; reads, and
     * a viewer's actions (each refused before anything is read), are checked around the whole walk of the operation.
     */
    private void walk(Operation operation, Caller caller) {
        Instant started = Instant.now();
        boolean eachRequest = operation.acts() && caller == asOperator;
        runToStop = operation.key().equals(STOP) && caller == asOperator ? busyRun() : null;
        Fixture watched = !eachRequest && operation.deadLetterAction() != null ? parseDeadLetters.open(false) : null;
        Snapshot before = eachRequest ? null : snapshot(watched);
        try {
            for (Case c : cases(operation, caller)) {
                send(operation, caller, c, eachRequest);
            }
        } finally {
            if (operation.key().startsWith("POST /api/steps/")) {
                // a valid pause stopped the index step: it runs again, also when the walk failed, or the next test
                // classes' runs would wait at it (the server is theirs too)
                runAgain("index");
            }
        }
        if (!eachRequest) {
            global = null;
            if (watched != null) {
                watched.cached = null;
            }
            Snapshot after = snapshot(watched);
            if (before != null && after != null && !before.equals(after)) {
                failures.add(new Failure("refused, but stored", operation.key(), caller.name(), "the whole walk of the operation",
                        before.differences(after)));
            }
        }
        seconds.merge(operation.key() + " as " + caller.name(), Duration.between(started, Instant.now()).toSeconds(), Long::sum);
    }

    private void send(Operation operation, Caller caller, Case c, boolean eachRequest) {
        String action = operation.deadLetterAction();
        Fixture target = null;
        String path = operation.path();
        for (Parameter parameter : operation.in("path")) {
            String value = c.path().get(parameter.name());
            if (value == null) {
                if (action != null && caller == asOperator) {
                    Pool pool = action.equals("skip-step") ? indexDeadLetters : parseDeadLetters;
                    target = c.closed() ? pool.closed() : pool.open(action.equals("investigate"));
                    if (target == null) {
                        skipped++;
                        return;
                    }
                    value = String.valueOf(target.id);
                } else {
                    value = realId(operation, parameter.name());
                }
            } else if (operation.acts() && caller == asOperator && namesSomethingReal(value)) {
                // "+1" or an Arabic-Indic 3 reads as an id that may be another test's: not the test's to act on
                skipped++;
                return;
            }
            path = path.replace("{" + parameter.name() + "}", value);
        }
        byte[] body = c.body() == null ? null : c.body().bytes();
        if (caller == asOperator && body != null && startsAnUnboundedJob(operation, body)) {
            skipped++;
            return;
        }
        Snapshot before = eachRequest ? snapshot(target) : null;
        Map<String, String> headers = new LinkedHashMap<>(c.headers());
        headers.put("Authorization", caller.authorization());
        Outcome outcome = client.send(operation.method(), path + (c.query().isEmpty() ? "" : "?" + c.query()), headers, body,
                c.body() == null ? null : c.body().contentType());
        requests++;
        exercised.add(operation.key());
        statuses.computeIfAbsent(operation.key() + " as " + caller.name(), k -> new TreeMap<>()).merge(outcome.status(), 1, Integer::sum);

        if (outcome.refusedAsTooLarge()) {
            // refused by the listener before anything of Lazarus ran: nothing to check beyond that it did not hang
        } else if (!outcome.answered()) {
            fail("no answer", operation, caller, c, outcome.noAnswer() + " (after " + outcome.millis() + " ms)");
        } else if (outcome.millis() > FuzzClient.LIMIT.toMillis()) {
            fail("slower than " + FuzzClient.LIMIT.toSeconds() + " s", operation, caller, c, outcome.status() + " after " + outcome.millis() + " ms");
        }
        if (outcome.status() >= 500) {
            fail("server error", operation, caller, c, outcome.status() + " in " + outcome.millis() + " ms" + incident(outcome.body()));
        }
        boolean accepted = outcome.status() >= 200 && outcome.status() < 300;
        if (c.input().equals(VALID) && !accepted && outcome.status() != 409 && (caller == asOperator || !operation.acts())) {
            // a conflict is an answer to the state of things (a finished job cannot be cancelled); anything else means this
            // test's idea of a valid request is wrong, and its hostile variants prove little
            fail("valid request refused", operation, caller, c, outcome.status() + " " + HostileValues.label(outcome.body()));
        }
        if (operation.acts() && accepted) {
            acceptedActions.add(operation.key() + ", " + c.input() + ": " + outcome.status());
            if (caller == asViewer) {
                fail("a viewer acted", operation, caller, c, String.valueOf(outcome.status()));
            }
            forgetSnapshots();
            readWhatItTouched(operation, caller, c, outcome, target);
        } else if (eachRequest && outcome.status() >= 400 && outcome.status() < 500) {
            Snapshot after = snapshot(target);
            if (before != null && after != null && !before.equals(after)) {
                fail("refused, but stored", operation, caller, c, outcome.status() + ", and " + before.differences(after));
            }
        }
    }

    /** The step runs again (resumed if a request of the walk paused it), on the broker too, before the test goes on. */
    private void runAgain(String step) {
        String queue = "lazarus." + PIPELINE + "." + step;
        if (!"RUNNING".equals(stepState(step))) {
            operator.post("api/steps/" + PIPELINE + "/" + step + "/resume", "{\"note\":\"the fuzz test is done with it\"}").ok();
        }
        Await.until("step " + step + " running, its queue resumed on the broker", Duration.ofSeconds(30),
                () -> stepState(step) + (broker.isPaused(queue) ? " (queue paused)" : ""), "RUNNING"::equals);
    }

    private String stepState(String step) {
        return viewer.get("api/steps").ok().json().getJsonArray("steps").stream().map(jakarta.json.JsonValue::asJsonObject)
                .filter(s -> PIPELINE.equals(s.getString("pipeline")) && step.equals(s.getString("step"))).findFirst()
                .orElseThrow(() -> new AssertionError("no step " + step + " in /api/steps")).getString("state");
    }

    /** A run of the test's own, in progress at its index step for 20 s (index is called stuck only after 2 minutes). */
    private String busyRun() {
        String id = operator.startRun("{\"url\":\"https://example.org/fuzz-stop\",\"fuzz\":\"" + marker
                + "\",\"failures\":{\"index\":{\"mode\":\"hang\",\"seconds\":20}}}");
        runs.add(id);
        forgetSnapshots(); // there is one more run now
        Await.until("run " + id + " to be in progress at index", Duration.ofSeconds(60), () -> viewer.run(id),
                run -> "IN_PROGRESS".equals(run.getString("state")) && "index".equals(run.getString("currentStep")));
        return id;
    }

    private String realId(Operation operation, String parameter) {
        if (runToStop != null && operation.key().equals(STOP)) {
            return runToStop;
        }
        if (operation.key().contains("/steps/{pipeline}/{step}")) {
            // the index step: paused by a valid request, and running again after the walk (see walk)
            return parameter.equals("pipeline") ? PIPELINE : "index";
        }
        if (operation.key().contains("/dead-letters/{id}")) {
            return String.valueOf(parseDeadLetters.fixtures.get(0).id);
        }
        if (operation.key().contains("/runs/{id}")) {
            return parseDeadLetters.fixtures.get(0).runId;
        }
        if (operation.key().contains("/requeue-jobs/{id}") || operation.key().contains("/bulk-jobs/{id}")) {
            return String.valueOf(job);
        }
        if (operation.key().contains("/webhooks/{name}")) {
            return fuzzWebhook();
        }
        return "1";
    }

    /** Whether a path value reads as an id that may exist (Java reads "+1" as 1, and "\u0663" as 3). */
    private static boolean namesSomethingReal(String encoded) {
        try {
            long id = Long.parseLong(URLDecoder.decode(encoded, StandardCharsets.UTF_8).trim());
            return id > 0 && id < 1_000_000_000L;
        } catch (IllegalArgumentException notAnId) {
            return false;
        }
    }

    // ---- what must not change, and what must still answer ---------------------------------------------------

    /**
     * The run count, the bulk jobs, and the dead letter (its status and the entries the callers made in its trail,
     * not the server's own) with its run. Null if it cannot be read: that is reported.
     */
    private Snapshot snapshot(Fixture fixture) {
        if (fixture != null && fixture.cached != null && global != null) {
            return fixture.cached;
        }
        if (global == null) {
            Api.Response runCount = viewer.get("api/runs?limit=1");
            Api.Response jobs = viewer.get("api/bulk-jobs"); // every job, of any action
            if (runCount.status() != 200 || jobs.status() != 200) {
                failures.add(new Failure("unreadable afterwards", "GET /api/runs, GET /api/bulk-jobs", "viewer", "the counts",
                        runCount.status() + ", " + jobs.status()));
                return null;
            }
            global = new Snapshot(runCount.json().getJsonNumber("total").longValue(), jobIds(jobs.body()), "", "");
        }
        if (fixture == null) {
            return global;
        }
        Api.Response deadLetter = viewer.get("api/dead-letters/" + fixture.id);
        JsonObject read = readable("GET /api/dead-letters/{id}", deadLetter, fixture.id + " (of run " + fixture.runId + ")");
        if (read == null) {
            fixture.status = "unreadable " + deadLetter.status();
            return null;
        }
        fixture.status = read.getString("status");
        long byCallers = read.getJsonArray("history").stream().map(JsonValue::asJsonObject)
                .filter(e -> e.getString("actor", "").equals("operator") || e.getString("actor", "").equals("viewer")).count();
        JsonObject r = readable("GET /api/runs/{id}", viewer.get("api/runs/" + fixture.runId), fixture.runId);
        if (r == null) {
            return null;
        }
        String run = r.getString("state") + ", generation " + r.getJsonNumber("generation") + ", requeued " + r.getInt("requeueCount")
                + ", payload " + r.get("payload");
        fixture.cached = new Snapshot(global.runs(), global.jobs(), fixture.status + " with " + byCallers + " entries by callers", run);
        return fixture.cached;
    }

    private static String jobIds(String jobs) {
        try (var reader = Json.createReader(new StringReader(jobs))) {
            return reader.readArray().stream().map(j -> String.valueOf(j.asJsonObject().getJsonNumber("id"))).collect(Collectors.joining(","));
        }
    }

    /** An accepted action may have changed anything: the next check reads afresh. */
    private void forgetSnapshots() {
        global = null;
        for (Pool pool : List.of(parseDeadLetters, indexDeadLetters)) {
            pool.fixtures.forEach(f -> f.cached = null);
        }
    }

    /** After an accepted action: what it created or changed can still be read (a run, its history, a dead letter, a job). */
    private void readWhatItTouched(Operation operation, Caller caller, Case c, Outcome outcome, Fixture target) {
        List<String> touchedRuns = new ArrayList<>();
        if (target != null) {
            snapshot(target);
            touchedRuns.add(target.runId);
        }
        if (operation.key().equals(STOP) && runToStop != null) {
            touchedRuns.add(runToStop);
        }
        JsonValue answer = parse(outcome.body());
        if (answer instanceof JsonObject object) {
            if (operation.key().equals("POST /api/runs") && object.get("id") instanceof JsonString id) {
                touchedRuns.add(id.getString());
            }
            if (object.get("runs") instanceof JsonArray started) {
                started.stream().filter(r -> r instanceof JsonObject o && o.get("id") instanceof JsonString)
                        .forEach(r -> touchedRuns.add(r.asJsonObject().getString("id")));
            }
            if (JOB_FIELDS.containsKey(operation.key()) && object.get("id") instanceof JsonNumber id) {
                brokenAfterwards("GET /api/bulk-jobs/{id}", viewer.get("api/bulk-jobs/" + id), id + ", started by " + c.input());
            }
        }
        runs.addAll(touchedRuns);
        touchedRuns.forEach(id -> readRun(id, "after " + operation.key() + " as " + caller.name() + ", " + c.input()));
    }

    private void readRun(String id, String when) {
        brokenAfterwards("GET /api/runs/{id}", viewer.get("api/runs/" + id), id + " " + when);
        brokenAfterwards("GET /api/runs/{id}/history", viewer.get("api/runs/" + id + "/history"), id + " " + when);
    }

    /** A read of what an accepted action touched that fails with a server error; reported once for each thing. */
    private void brokenAfterwards(String read, Api.Response response, String what) {
        if (response.status() >= 500) {
            unreadable(read, what, response.status() + incident(response.body()));
        } else if (response.status() == 200 && parse(response.body()) == null) {
            unreadable(read, what, "200, but the answer is no JSON a parser reads (nested deeper than 1 000 levels?)");
        }
    }

    /** The answer as a JSON object, or null if it is a 404 or unreadable (which is reported). */
    private JsonObject readable(String read, Api.Response response, String what) {
        brokenAfterwards(read, response, what);
        return response.status() == 200 && parse(response.body()) instanceof JsonObject object ? object : null;
    }

    private void unreadable(String read, String what, String outcome) {
        if (brokenAfterwards.add(read + " " + what.split(" ")[0])) {
            failures.add(new Failure("unreadable afterwards", read, "viewer", what, outcome));
        }
    }

    private static JsonValue parse(String body) {
        try (var reader = Json.createReader(new StringReader(body))) {
            return reader.readValue();
        } catch (RuntimeException notJson) {
            return null;
        }
    }

    /** The incident a server error names (the log has its cause), or what else its answer says. */
    private static String incident(String body) {
        Matcher incident = INCIDENT.matcher(body);
        return incident.find() ? ", incident " + incident.group(1) : body.isBlank() ? "" : ", " + HostileValues.label(body);
    }

    private void fail(String kind, Operation operation, Caller caller, Case c, String outcome) {
        failures.add(new Failure(kind, operation.key(), caller.name(), c.input(), outcome));
    }

    // ---- tidying up, and the report -------------------------------------------------------------------------

    /** Every run the test started settles and can be read; the dead letters they left open are discarded. */
    private void tidyUp() {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        for (String id : runs) {
            String state = Await.until("run " + id + " to settle", Duration.ofSeconds(61), () -> state(id),
                    s -> !LIVE.contains(s) || Instant.now().isAfter(deadline));
            if (LIVE.contains(state)) {
                failures.add(new Failure("never settled", "GET /api/runs/{id}", "viewer", id, "still " + state + " a minute after the walk"));
            }
            readRun(id, "at the end");
        }
        for (int offset = 0; ; offset += 500) {
            JsonObject open = readable("GET /api/dead-letters", viewer.get("api/dead-letters?open=true&limit=500&offset=" + offset
                    + "&pipeline=" + PIPELINE), "open=true&pipeline=" + PIPELINE + " at the end");
            if (open == null) {
                return;
            }
            List<JsonObject> items = open.getJsonArray("items").getValuesAs(JsonObject.class);
            items.stream().filter(d -> runs.contains(d.getString("runId"))).forEach(d -> {
                Api.Response discarded = operator.post("api/dead-letters/" + d.getJsonNumber("id") + "/discard",
                        "{\"note\":\"left by the API fuzz test\"}");
                if (discarded.status() != 200) {
                    // an open dead letter left behind would count in the next test's lists
                    failures.add(new Failure("left behind", "POST /api/dead-letters/{id}/discard", "operator", "dead letter " + d.getJsonNumber("id")
                            + " of run " + d.getString("runId"), discarded.status() + incident(discarded.body())));
                }
            });
            if (items.size() < 500) {
                return;
            }
        }
    }

    /** The run's state, or how it cannot be read. */
    private String state(String id) {
        Api.Response run = viewer.get("api/runs/" + id);
        return parse(run.body()) instanceof JsonObject read && read.get("state") instanceof JsonString state ? state.getString()
                : "unreadable " + run.status();
    }

    private String report(Duration took) {
        StringBuilder report = new StringBuilder();
        report.append(String.format("API fuzz test, seed %d: %d requests (%d not sent: they would act on what is not the test's) in %d s (%s); %d failures%n",
                SEED, requests, skipped, took.toSeconds(), phases, failures.size()));
        Map<String, String> causes = causesInTheServerLog();
        Map<String, List<Failure>> byKind = failures.stream().collect(Collectors.groupingBy(f -> {
            Matcher incident = INCIDENT.matcher(f.outcome());
            return incident.find() && causes.containsKey(incident.group(1)) ? f.kind() + ": " + causes.get(incident.group(1)) : f.kind();
        }, TreeMap::new, Collectors.toList()));
        byKind.forEach((kind, listed) -> {
            report.append(String.format("%n== %s (%d) ==%n", kind, listed.size()));
            listed.stream().map(Failure::toString).sorted().forEach(f -> report.append("  ").append(f).append('\n'));
        });
        report.append(String.format("%n== answers by operation ==%n"));
        statuses.forEach((op, counted) -> report.append("  ").append(op).append(": ").append(counted)
                .append(", walked in ").append(seconds.getOrDefault(op, 0L)).append(" s\n"));
        return report.toString();
    }

    /**
     * The root cause of each incident in the test server's log (where the build puts it): the last "Caused by" of the
     * exception the incident's line logs. Empty when the log is elsewhere.
     */
    private static Map<String, String> causesInTheServerLog() {
        Path log = Path.of(System.getProperty("it.base.dir", "target/it/wildfly"), "log", "server.log");
        Map<String, String> causes = new LinkedHashMap<>();
        if (!Files.isReadable(log)) {
            return causes;
        }
        List<String> lines;
        try {
            // the log holds what requests sent, NUL bytes and broken UTF-8 too
            lines = new String(Files.readAllBytes(log), StandardCharsets.UTF_8).lines().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Pattern failed = Pattern.compile("Request failed, incident ([0-9a-f-]{36}): (.*)");
        Pattern record = Pattern.compile("^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d");
        for (int i = 0; i < lines.size(); i++) {
            Matcher incident = failed.matcher(lines.get(i));
            if (incident.find()) {
                String cause = incident.group(2);
                for (int j = i + 1; j < lines.size() && !record.matcher(lines.get(j)).find(); j++) {
                    if (lines.get(j).startsWith("Caused by: ")) {
                        cause = lines.get(j).substring("Caused by: ".length());
                    }
                }
                causes.put(incident.group(1), cause.length() > 160 ? cause.substring(0, 160) + "..." : cause);
            }
        }
        return causes;
    }

    private static void write(String report) {
        try {
            Path directory = Path.of(System.getProperty("it.repo.dir", "."), "target", "fuzz");
            Files.createDirectories(directory);
            Files.writeString(directory.resolve("api-fuzz.txt"), report);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private URL root() {
        try {
            return new URL(base.getProtocol(), base.getHost(), base.getPort(), "/");
        } catch (MalformedURLException e) {
            throw new IllegalStateException(e);
        }
    }
}
