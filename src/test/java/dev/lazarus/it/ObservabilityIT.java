package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.Span;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.net.InetSocketAddress;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What an operator watches, against the real server: the Prometheus endpoint (not anonymous; every metric the alert
 * rules and the reference (src/site/markdown/reference.md) name is there), the structured log, and the traces. The server exports its spans over OTLP/HTTP
 * to a receiver this test runs (arquillian.xml points the server at it).
 */
class ObservabilityIT extends LazarusIT {

    private static final Pattern METRIC = Pattern.compile("\\blazarus_[a-z_]+[a-z]");
    private static final List<Span> SPANS = new CopyOnWriteArrayList<>();
    private static HttpServer receiver;

    @BeforeAll
    static void receiveSpans() throws IOException {
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", Integer.getInteger("it.otlp.port", 14318)), 0);
        receiver.createContext("/v1/traces", exchange -> {
            InputStream body = exchange.getRequestBody();
            if ("gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
                body = new GZIPInputStream(body);
            }
            ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(body);
            request.getResourceSpansList().forEach(resource -> resource.getScopeSpansList()
                    .forEach(scope -> SPANS.addAll(scope.getSpansList())));
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        receiver.start();
    }

    @AfterAll
    static void stopReceiving() {
        receiver.stop(0);
    }

    private Api prometheus(String user, String password) throws IOException {
        return new Api(new URL("http://127.0.0.1:" + Integer.getInteger("it.management.port", 10090) + "/"), user, password);
    }

    private Map<String, Double> scrape() {
        try {
            Api.Response response = prometheus("metrics", "metrics-pw").get("prometheus");
            assertEquals(200, response.status(), response.body());
            return response.body().lines().filter(line -> line.startsWith("lazarus_"))
                    .collect(Collectors.toMap(line -> line.substring(0, line.lastIndexOf(' ')).replace("WF_DEPLOYMENT=\"lazarus.war\",", ""),
                            line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)), (a, b) -> b));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Set<String> names(Map<String, Double> samples) {
        return samples.keySet().stream().map(sample -> sample.replaceAll("\\{.*", "").replaceAll("_(count|sum|max)$", ""))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<String> metricsNamedIn(Path file, String from, String to) throws IOException {
        // the rules' comments may speak of metric families (lazarus_timer_*): only what the rules themselves name counts
        String text = Files.readAllLines(file).stream().filter(line -> !(file.toString().endsWith(".yml") && line.strip().startsWith("#")))
                .collect(Collectors.joining("\n"));
        int start = from == null ? 0 : text.indexOf(from);
        int end = to == null ? text.length() : text.indexOf(to, start + 1);
        assertTrue(start >= 0 && end > start, file + " has a section from '" + from + "' to '" + to + "'");
        Set<String> names = new TreeSet<>();
        Matcher matcher = METRIC.matcher(text.substring(start, end));
        while (matcher.find()) {
            names.add(matcher.group().replaceAll("_(count|sum|max)$", ""));
        }
        return names;
    }

    @Test
    void thePrometheusEndpointIsNotAnonymous() throws IOException {
        assertEquals(401, prometheus(null, null).get("prometheus").status(), "anonymous");
        assertEquals(401, prometheus("operator", "operator-pw").get("prometheus").status(), "an application user is not a management user");
        assertEquals(401, prometheus("metrics", "wrong").get("prometheus").status(), "a wrong password");
        assertFalse(scrape().isEmpty());
    }

    /**
     * The scrape's credential reads the metrics and nothing else of the management interface: not the model (datasource
     * settings, the JVM's arguments, system properties), neither by a read nor by an operation. Anonymous callers and
     * application users reach none of it.
     */
    @Test
    void theScrapeCredentialReadsTheMetricsAndNothingElse() throws IOException {
        Api metrics = prometheus("metrics", "metrics-pw");
        assertEquals(200, metrics.get("prometheus").status());
        for (String read : List.of("management", "management?operation=resource&recursive=true",
                "management/subsystem/datasources?operation=resource&recursive=true",
                "management/core-service/platform-mbean/type/runtime?operation=attribute&name=input-arguments",
                "management/system-property?operation=resource&recursive=true",
                "management/subsystem/elytron?operation=resource&recursive=true")) {
            Api.Response answer = metrics.get(read);
            assertFalse(answer.status() == 200 || answer.body().contains("\"outcome\" : \"success\""),
                    read + " answered " + answer.status() + ": " + answer.body().substring(0, Math.min(300, answer.body().length())));
        }
        for (String operation : List.of(
                "{\"operation\":\"read-attribute\",\"address\":[{\"core-service\":\"platform-mbean\"},{\"type\":\"runtime\"}],\"name\":\"input-arguments\"}",
                "{\"operation\":\"read-resource\",\"address\":[{\"subsystem\":\"datasources\"}],\"recursive\":true}",
                "{\"operation\":\"read-children-names\",\"address\":[],\"child-type\":\"subsystem\"}")) {
            Api.Response answer = metrics.post("management", operation);
            assertFalse(answer.status() == 200 || answer.body().contains("\"outcome\" : \"success\""),
                    operation + " answered " + answer.status() + ": " + answer.body().substring(0, Math.min(300, answer.body().length())));
        }
        assertEquals(401, prometheus(null, null).get("management").status(), "anonymous");
        assertEquals(401, prometheus("operator", "operator-pw").get("management").status(), "an application user");
    }

    @Test
    void everyMetricTheAlertRulesAndTheReferenceNameIsExported() throws IOException {
        Path repo = Path.of(System.getProperty("it.repo.dir", "."));
        Set<String> exported = names(scrape());
        Set<String> inRules = metricsNamedIn(repo.resolve("src/main/prometheus/lazarus-alerts.yml"), null, null);
        Set<String> inReference = metricsNamedIn(repo.resolve("src/site/markdown/reference.md"), "## Metrics\n", "## Structured logs\n");
        assertTrue(inRules.size() >= 6, "the rules name metrics: " + inRules);
        assertTrue(inReference.size() >= 15, "the reference lists the metrics: " + inReference);
        for (Set<String> named : List.of(inRules, inReference)) {
            Set<String> missing = new TreeSet<>(named);
            missing.removeAll(exported);
            assertTrue(missing.isEmpty(), "named but not exported: " + missing + "; exported: " + exported);
        }
        Set<String> unlisted = new TreeSet<>(exported);
        unlisted.removeAll(inReference);
        assertTrue(unlisted.isEmpty(), "exported but not listed in the reference: " + unlisted);
    }

    @Test
    void aRunThatIsDeadLetteredIsCountedLoggedAndTracedFromItsSubmission() throws IOException {
        String counted = "lazarus_dead_letters_total{pipeline=\"document-ingestion\",reason=\"RETRIES_EXHAUSTED\",step=\"parse\"}";
        double before = scrape().getOrDefault(counted, 0.0);
        // the client chooses the trace: the run's spans join it
        String traceId = HexFormat.of().formatHex(java.security.SecureRandom.getSeed(16));
        Api.Response created = operator.post("api/runs", "{\"pipeline\":\"document-ingestion\",\"payload\":"
                + "{\"failures\":{\"parse\":{\"mode\":\"always\"}}}}", "traceparent", "00-" + traceId + "-00f067aa0ba902b7-01");
        assertEquals(201, created.status(), created.body());
        String runId = created.json().getString("id");
        JsonObject run = awaitRun(runId, "DEAD_LETTERED");
        assertEquals(traceId, run.getString("traceId"), "the run names its trace");
        JsonObject deadLetter = viewer.get("api/dead-letters/" + run.getJsonObject("deadLetter").getInt("id")).ok().json();
        assertEquals(traceId, deadLetter.getString("traceId"), "and so does its dead letter");

        // metrics: counted once the dead letter committed; the gauge reads the database
        Await.until("the dead letter to be counted", Duration.ofSeconds(30), this::scrape,
                samples -> samples.getOrDefault(counted, 0.0) >= before + 1);
        Await.until("the open dead letter to show in the gauge", Duration.ofSeconds(30), this::scrape,
                samples -> samples.getOrDefault("lazarus_dead_letters_open{reason=\"RETRIES_EXHAUSTED\"}", 0.0) >= 1);

        // the structured log: JSON lines with the fields under "mdc"
        Path log = Path.of(System.getProperty("it.base.dir"), "log", "lazarus-events.log");
        List<JsonObject> lines = Await.until("the run's lines in " + log, Duration.ofSeconds(30), () -> eventsOf(log, runId),
                found -> found.stream().anyMatch(line -> "DEAD_LETTER".equals(line.getString("event"))));
        JsonObject started = lines.get(0);
        assertEquals("RUN", started.getString("event"));
        assertEquals("PENDING", started.getString("state"));
        assertEquals("fetch", started.getString("step"));
        assertEquals("1", started.getString("generation"));
        assertEquals(traceId, started.getString("traceId"));
        assertTrue(lines.stream().anyMatch(line -> "RUN".equals(line.getString("event")) && "DEAD_LETTERED".equals(line.getString("state"))
                && "parse".equals(line.getString("step"))), "the run's stop is a line: " + lines);
        JsonObject deadLettered = lines.stream().filter(line -> "DEAD_LETTER".equals(line.getString("event"))).findFirst().orElseThrow();
        assertEquals("RETRIES_EXHAUSTED", deadLettered.getString("reason"));
        assertEquals("parse", deadLettered.getString("step"));
        assertEquals(String.valueOf(deadLetter.getInt("generation")), deadLettered.getString("generation"));
        assertEquals(traceId, deadLettered.getString("traceId"));
        assertEquals(String.valueOf(deadLetter.getInt("id")), deadLettered.getString("deadLetterId"));

        // the trace: the request, the run, a span per delivery of fetch and of parse, each the child of what dispatched it
        List<Span> trace = Await.until("the run's spans", Duration.ofSeconds(30),
                () -> SPANS.stream().filter(span -> traceId.equals(hex(span.getTraceId().toByteArray()))).toList(),
                spans -> spans.stream().filter(span -> span.getName().equals("lazarus step " + PARSE)).count() >= 3
                        && spans.stream().anyMatch(span -> span.getEventsList().stream().anyMatch(e -> e.getName().equals("lazarus.dead_letter"))));
        Span runSpan = trace.stream().filter(span -> span.getName().equals("lazarus run document-ingestion")).findFirst().orElseThrow(
                () -> new AssertionError("no run span in " + names(trace)));
        Span fetch = trace.stream().filter(span -> span.getName().equals("lazarus step " + FETCH)).findFirst().orElseThrow();
        assertEquals(hex(runSpan.getSpanId().toByteArray()), hex(fetch.getParentSpanId().toByteArray()), "fetch's delivery is the run's child");
        List<Span> parses = trace.stream().filter(span -> span.getName().equals("lazarus step " + PARSE)).toList();
        for (Span parse : parses) {
            assertEquals(hex(fetch.getSpanId().toByteArray()), hex(parse.getParentSpanId().toByteArray()),
                    "each delivery of parse is the child of the fetch that dispatched it");
            assertEquals(Span.SpanKind.SPAN_KIND_CONSUMER, parse.getKind());
            assertTrue(parse.getAttributesList().stream().anyMatch(a -> a.getKey().equals("lazarus.run.id")
                    && a.getValue().getStringValue().equals(runId)), "the span names the run");
        }
        assertTrue(parses.stream().anyMatch(span -> span.getEventsList().stream().anyMatch(event -> event.getName().equals("lazarus.dead_letter")
                && event.getAttributesList().stream().anyMatch(a -> a.getValue().getStringValue().equals("RETRIES_EXHAUSTED")))),
                "the delivery that gave up says so in the trace");
    }

    /**
     * A run past its step's threshold is counted stale at its step, until the sweeper takes it. The run hangs in parse
     * (stuck-after is 6 s on the test server) and its row is held from outside ({@link HeldRun}), so the sweeper must leave
     * it, as it leaves a run a transaction in doubt holds: it stays stale while the test looks. Let go, it is
     * dead-lettered and no longer counted.
     */
    @Test
    void aRunPastItsThresholdIsCountedStaleAtItsStepUntilTheSweeperTakesIt() {
        String staleAtParse = "lazarus_runs_at_risk{health=\"stale\",pipeline=\"document-ingestion\",step=\"parse\"}";
        String staleAtFetch = "lazarus_runs_at_risk{health=\"stale\",pipeline=\"document-ingestion\",step=\"fetch\"}";
        String runId = operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"hang\",\"seconds\":30}}}");
        awaitRun(runId, "IN_PROGRESS");
        try (HeldRun held = HeldRun.lock(runId, "IN_PROGRESS")) {
            Await.until("the hanging run to be counted stale at parse", Duration.ofSeconds(30), () -> scrape().get(staleAtParse),
                    count -> count != null && count >= 1);
            assertEquals(0.0, scrape().get(staleAtFetch), "and nowhere else");
        }
        JsonObject run = awaitRun(runId, "DEAD_LETTERED");
        assertEquals("STUCK_IN_PROGRESS", run.getJsonObject("deadLetter").getString("reason"));
        Await.until("the dead-lettered run to be counted no more", Duration.ofSeconds(30), () -> scrape().get(staleAtParse),
                count -> count != null && count == 0);
    }

    @Test
    void eachRunOfABatchIsATraceOfItsOwnWhoseFirstStepIsTheChildOfItsRunSpan() {
        String requestTrace = HexFormat.of().formatHex(java.security.SecureRandom.getSeed(16));
        Api.Response created = operator.post("api/runs/batch", "{\"runs\":[{\"pipeline\":\"document-ingestion\",\"payload\":{\"url\":\"a\"}},"
                + "{\"pipeline\":\"document-ingestion\",\"payload\":{\"url\":\"b\"}}]}", "traceparent", "00-" + requestTrace + "-00f067aa0ba902b7-01");
        assertEquals(201, created.status(), created.body());
        List<String> traces = created.json().getJsonArray("runs").getValuesAs(JsonObject.class).stream()
                .map(run -> awaitRun(run.getString("id"), "COMPLETED").getString("traceId")).toList();
        assertEquals(2, Set.copyOf(traces).size(), "a trace each: " + traces);
        assertFalse(traces.contains(requestTrace), "not the request's");
        for (String trace : traces) {
            List<Span> spans = Await.until("the spans of trace " + trace, Duration.ofSeconds(30),
                    () -> SPANS.stream().filter(span -> trace.equals(hex(span.getTraceId().toByteArray()))).toList(),
                    found -> found.stream().anyMatch(span -> span.getName().equals("lazarus step " + INDEX)));
            Span runSpan = spans.stream().filter(span -> span.getName().equals("lazarus run document-ingestion")).findFirst().orElseThrow();
            assertTrue(runSpan.getLinksList().stream().anyMatch(link -> requestTrace.equals(hex(link.getTraceId().toByteArray()))),
                    "linked to the request");
            Span fetch = spans.stream().filter(span -> span.getName().equals("lazarus step " + FETCH)).findFirst().orElseThrow();
            assertEquals(hex(runSpan.getSpanId().toByteArray()), hex(fetch.getParentSpanId().toByteArray()), "fetch is the run span's child");
        }
    }

    private static List<String> names(List<Span> spans) {
        return spans.stream().map(Span::getName).toList();
    }

    private static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    /** The "mdc" fields of the log lines about this run, oldest first. */
    private static List<JsonObject> eventsOf(Path log, String runId) {
        try {
            return Files.readAllLines(log).stream().filter(line -> line.contains(runId))
                    .map(line -> Json.createReader(new StringReader(line)).readObject().getJsonObject("mdc"))
                    .filter(mdc -> runId.equals(mdc.getString("runId", null))).toList();
        } catch (IOException e) {
            return List.of();
        }
    }
}
