package dev.lazarus.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The commands against a stand-in of the API (the JDK's HTTP server, answering what each test tells it): which request
 * each command sends, what it prints, and which exit code it ends with. That they agree with the real server is
 * {@code CommandLineIT}'s to show.
 */
class CommandLineTest {

    /** One request as the stand-in received it. */
    record Request(String method, String path, Map<String, String> query, String authorization, String contentType, String body) {
    }

    record Answer(int status, String contentType, String body) {
    }

    @TempDir
    Path home;

    private HttpServer server;
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final ConcurrentLinkedDeque<Answer> answers = new ConcurrentLinkedDeque<>();
    private Answer always;
    private String out;
    private String err;

    @BeforeEach
    void standIn() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            String raw = exchange.getRequestURI().getRawQuery();
            Map<String, String> query = new HashMap<>();
            if (raw != null) {
                for (String pair : raw.split("&")) {
                    String[] nameValue = pair.split("=", 2);
                    query.put(URLDecoder.decode(nameValue[0], StandardCharsets.UTF_8), URLDecoder.decode(nameValue[1], StandardCharsets.UTF_8));
                }
            }
            requests.add(new Request(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(), query,
                    exchange.getRequestHeaders().getFirst("Authorization"), exchange.getRequestHeaders().getFirst("Content-Type"),
                    new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
            Answer answer = answers.isEmpty() ? always : answers.poll();
            byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", answer.contentType());
            exchange.sendResponseHeaders(answer.status(), body.length == 0 ? -1 : body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        always = new Answer(200, "application/json", "{}");
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private void answer(int status, String body) {
        answers.add(new Answer(status, status >= 400 ? "application/problem+json" : "application/json", body));
    }

    private Map<String, String> env() {
        return Map.of("LAZARUS_URL", "http://127.0.0.1:" + server.getAddress().getPort() + "/lazarus",
                "LAZARUS_USER", "operator", "LAZARUS_PASSWORD", "operator-pw");
    }

    private int lazarus(String... args) {
        return lazarusWith(env(), args);
    }

    private int lazarusWith(Map<String, String> env, String... args) {
        StringWriter stdout = new StringWriter();
        StringWriter stderr = new StringWriter();
        int exit = Lazarus.execute(args, env, home, new PrintWriter(stdout), new PrintWriter(stderr));
        out = stdout.toString();
        err = stderr.toString();
        return exit;
    }

    private Request only() {
        assertEquals(1, requests.size(), requests.toString());
        return requests.get(0);
    }

    private static final String RUN = "3f2a6c1e-0000-4000-8000-000000000001";
    private static final String PAGE_OF_ONE_RUN = "{\"items\":[{\"id\":\"" + RUN + "\",\"pipeline\":\"document-ingestion\",\"state\":\"PENDING\","
            + "\"currentStep\":\"fetch\",\"requeueCount\":0,\"updatedAt\":\"2026-11-22T06:00:00.123456Z\"}],\"total\":7,\"offset\":0,\"limit\":1}";

    @Test
    void everyCommandAndSubcommandAnswersHelpAndTheVersion() {
        List<String> paths = new ArrayList<>();
        collect(Lazarus.commandLine(Map.of(), home), "", paths);
        assertTrue(paths.containsAll(List.of("runs list", "runs show", "runs stop", "runs retry-now", "dead-letters list", "dead-letters show",
                "dead-letters requeue", "dead-letters resolve", "dead-letters discard", "dead-letters recreate", "dead-letters causes",
                "jobs start", "jobs show", "jobs cancel", "steps list", "steps pause", "steps resume", "events tail")), paths.toString());
        for (String path : paths) {
            List<String> args = new ArrayList<>(List.of(path.split(" ")));
            args.removeIf(String::isEmpty);
            args.add("--help");
            assertEquals(0, lazarusWith(Map.of(), args.toArray(String[]::new)), path + ": " + err);
            // picocli's own help command opens with what it does, then its usage
            assertTrue(path.equals("help") ? out.contains("Usage: lazarus help") : out.startsWith("Usage: lazarus " + path), path + ": " + out);
        }
        assertEquals(0, lazarusWith(Map.of(), "--version"));
        assertTrue(out.startsWith("lazarus "), out);
        assertTrue(requests.isEmpty(), "help needs no server");
    }

    private static void collect(CommandLine command, String path, List<String> paths) {
        paths.add(path);
        command.getSubcommands().forEach((name, sub) -> collect(sub, (path + " " + name).trim(), paths));
    }

    @Test
    void runsListSendsEveryFilterGivenAsTheApisQueryParametersWithBasicCredentialsAndPrintsATable() {
        answer(200, PAGE_OF_ONE_RUN);
        assertEquals(0, lazarus("runs", "list", "--state", "PENDING", "--pipeline", "document-ingestion", "--key", "order-4711", "--label",
                "vip", "--payload", "customer.id=42", "--payload", "region=eu west", "--offset", "0", "--limit", "1"));
        Request request = only();
        assertEquals("GET", request.method());
        assertEquals("/lazarus/api/runs", request.path());
        assertEquals(Map.of("state", "PENDING", "pipeline", "document-ingestion", "key", "order-4711", "label", "vip",
                "payload.customer.id", "42", "payload.region", "eu west", "offset", "0", "limit", "1"), request.query());
        assertEquals("Basic " + Base64.getEncoder().encodeToString("operator:operator-pw".getBytes(StandardCharsets.UTF_8)), request.authorization());
        List<String> lines = out.lines().toList();
        assertEquals(List.of("ID", "PIPELINE", "STATE", "STEP", "REQUEUES", "UPDATED"), List.of(lines.get(0).split("\\s+")));
        assertEquals(List.of(RUN, "document-ingestion", "PENDING", "fetch", "0", "2026-11-22T06:00:00Z"), List.of(lines.get(1).split("\\s+")));
        assertEquals("1-1 of 7 runs", lines.get(2));
        assertEquals("", err);
    }

    @Test
    void jsonPrintsTheAnswerAsItCameWhetherGivenBeforeOrAfterTheCommand() {
        answer(200, PAGE_OF_ONE_RUN);
        answer(200, PAGE_OF_ONE_RUN);
        assertEquals(0, lazarus("--json", "runs", "list"));
        assertEquals(PAGE_OF_ONE_RUN + System.lineSeparator(), out);
        assertEquals(0, lazarus("runs", "list", "--json"));
        assertEquals(PAGE_OF_ONE_RUN + System.lineSeparator(), out);
    }

    @Test
    void deadLettersListTakesOpenAsAStatusAndAnAgeAsTheStartOfItsWindow() {
        answer(200, "{\"items\":[],\"total\":0,\"offset\":0,\"limit\":50}");
        Instant before = Instant.now().minus(Duration.ofHours(2)).minusSeconds(1);
        assertEquals(0, lazarus("dead-letters", "list", "--reason", "RETRIES_EXHAUSTED", "--status", "OPEN", "--pipeline", "p", "--step", "s",
                "--since", "2h", "--to", "2026-11-22T06:00:00Z", "--run", RUN, "--error", "refused", "--cause", "abc", "--key", "k"));
        Map<String, String> query = new HashMap<>(only().query());
        Instant from = Instant.parse(query.remove("from"));
        assertTrue(!from.isBefore(before) && from.isBefore(Instant.now().minus(Duration.ofHours(2)).plusSeconds(1)), from.toString());
        assertEquals(Map.of("reason", "RETRIES_EXHAUSTED", "open", "true", "pipeline", "p", "step", "s", "to", "2026-11-22T06:00:00Z",
                "runId", RUN, "error", "refused", "cause", "abc", "key", "k"), query);
        assertTrue(out.contains("no dead letters (0 in all)"), out);
    }

    @Test
    void recreateSendsThePayloadFileAsThePayloadOfTheNewRun() throws IOException {
        Path payload = home.resolve("fixed.json");
        Files.writeString(payload, "{\"url\": \"https://docs.example.org/fixed.html\"}");
        answer(201, "{\"id\":\"" + RUN + "\",\"pipeline\":\"document-ingestion\",\"state\":\"PENDING\"}");
        assertEquals(0, lazarus("dead-letters", "recreate", "42", "--payload-file", payload.toString()));
        Request request = only();
        assertEquals("POST", request.method());
        assertEquals("/lazarus/api/dead-letters/42/recreate", request.path());
        assertEquals("application/json", request.contentType());
        assertEquals("{\"payload\":{\"url\":\"https://docs.example.org/fixed.html\"}}", request.body());
        assertTrue(out.contains("recreated dead letter 42 as run " + RUN), out);
    }

    @Test
    void aPayloadFileThatIsNoJsonObjectIsAUsageErrorAndSendsNothing() throws IOException {
        Path payload = home.resolve("bad.json");
        Files.writeString(payload, "[1, 2]");
        assertEquals(Exit.USAGE, lazarus("dead-letters", "recreate", "42", "--payload-file", payload.toString()));
        assertTrue(err.contains("must hold one JSON object"), err);
        assertTrue(requests.isEmpty());
    }

    @Test
    void resolveSendsItsNoteAndRootCause() {
        answer(200, "{\"id\":42,\"reason\":\"RETRIES_EXHAUSTED\",\"status\":\"RESOLVED_MANUALLY\"}");
        assertEquals(0, lazarus("dead-letters", "resolve", "42", "--root-cause", "BAD_DATA", "--note", "customer re-sent it"));
        assertEquals("{\"note\":\"customer re-sent it\",\"rootCause\":\"BAD_DATA\"}", only().body());
        assertEquals("/lazarus/api/dead-letters/42/resolve", only().path());
        assertTrue(out.contains("RESOLVED_MANUALLY"), out);
    }

    @Test
    void retryNowPostsToTheRunsRetryNow() {
        answer(200, "{\"id\":\"" + RUN + "\",\"pipeline\":\"document-ingestion\",\"state\":\"PENDING\",\"currentStep\":\"parse\"}");
        assertEquals(0, lazarus("runs", "retry-now", RUN));
        assertEquals("POST", only().method());
        assertEquals("/lazarus/api/runs/" + RUN + "/retry-now", only().path());
        assertEquals("application/json", only().contentType());
        assertTrue(out.contains("PENDING at parse"), out);
    }

    @Test
    void aJobsDryRunCountsWithTheFilterAndAStartSendsTheJob() {
        answer(200, "{\"action\":\"requeue\",\"matching\":12,\"filter\":{\"reason\":\"RETRIES_EXHAUSTED\"}}");
        assertEquals(0, lazarus("jobs", "start", "--dry-run", "--action", "requeue", "--reason", "RETRIES_EXHAUSTED", "--status", "OPEN"));
        assertEquals("GET", only().method());
        assertEquals("/lazarus/api/bulk-jobs/dry-run", only().path());
        assertEquals(Map.of("action", "requeue", "reason", "RETRIES_EXHAUSTED"), only().query());
        assertTrue(out.startsWith("would requeue 12 open dead letters"), out);

        requests.clear();
        answer(202, "{\"id\":7,\"action\":\"discard\",\"state\":\"RUNNING\",\"total\":12}");
        assertEquals(0, lazarus("jobs", "start", "--action", "discard", "--step", "fetch", "--cause", "abc", "--rate", "50", "--note", "test data"));
        assertEquals("POST", only().method());
        assertEquals("/lazarus/api/bulk-jobs", only().path());
        assertEquals("{\"action\":\"discard\",\"filter\":{\"step\":\"fetch\",\"cause\":\"abc\"},\"ratePerSecond\":50,\"note\":\"test data\"}",
                only().body());
        assertTrue(out.contains("lazarus jobs show 7"), out);
    }

    @Test
    void stepsPauseNamesTheStepInThePathAndNeedsANote() {
        assertEquals(Exit.USAGE, lazarus("steps", "pause", "document-ingestion", "index"));
        assertTrue(err.contains("--note"), err);
        assertTrue(requests.isEmpty(), "a usage error sends nothing");

        answer(200, "{\"pipeline\":\"document-ingestion\",\"step\":\"index\",\"state\":\"PAUSED\",\"by\":\"operator\",\"failureRate\":0.25}");
        assertEquals(0, lazarus("steps", "pause", "document-ingestion", "index", "--note", "upgrade"));
        assertEquals("/lazarus/api/steps/document-ingestion/index/pause", only().path());
        assertEquals("{\"note\":\"upgrade\"}", only().body());
        assertTrue(out.lines().skip(1).findFirst().orElseThrow().matches("document-ingestion\\s+index\\s+PAUSED\\s+-\\s+operator.*\\s25%\\s.*"), out);
    }

    @Test
    void stepsListSaysWhenARunningStepsQueueIsPausedOnTheBroker() {
        answer(200, "{\"steps\":[{\"pipeline\":\"p\",\"step\":\"parse\",\"state\":\"RUNNING\",\"queuePaused\":true,\"note\":null},"
                + "{\"pipeline\":\"p\",\"step\":\"index\",\"state\":\"PAUSED\",\"queuePaused\":true,\"note\":\"upgrade\"},"
                + "{\"pipeline\":\"p\",\"step\":\"fetch\",\"state\":\"RUNNING\",\"queuePaused\":false,\"note\":null}]}");
        assertEquals(0, lazarus("steps", "list"));
        java.util.List<String> rows = out.lines().skip(1).toList();
        assertTrue(rows.get(0).matches("p\\s+parse\\s+RUNNING\\s.*its queue is paused on the broker, outside Lazarus"), out);
        assertTrue(rows.get(1).endsWith("upgrade"), "paused by Lazarus: as it should be: " + out);
        assertTrue(!rows.get(2).contains("paused"), out);
    }

    @Test
    void eachRefusalIsOneLineOnStderrAndItsExitCode() {
        Map<Integer, Integer> expected = Map.of(400, Exit.REFUSED, 409, Exit.REFUSED, 404, Exit.NOT_FOUND, 401, Exit.NOT_ALLOWED,
                403, Exit.NOT_ALLOWED, 500, Exit.SERVER, 503, Exit.SERVER);
        expected.forEach((status, exit) -> {
            answer(status, "{\"title\":\"T" + status + "\",\"status\":" + status + ",\"detail\":\"what went wrong\"}");
            assertEquals(exit, lazarus("runs", "show", RUN), String.valueOf(status));
            assertEquals("lazarus: " + status + " T" + status + ": what went wrong" + System.lineSeparator(), err);
            assertEquals("", out);
        });
    }

    @Test
    void anUnreachableServerIsExitFive() {
        server.stop(0);
        assertEquals(Exit.SERVER, lazarus("steps", "list"));
        assertTrue(err.startsWith("lazarus: cannot reach http://127.0.0.1:"), err);
        assertEquals(1, err.lines().count(), err);
    }

    @Test
    void noCredentialsIsExitFourBeforeAnythingIsSent() {
        assertEquals(Exit.NOT_ALLOWED, lazarusWith(Map.of("LAZARUS_URL", env().get("LAZARUS_URL")), "runs", "list"));
        assertTrue(err.contains("set LAZARUS_USER and LAZARUS_PASSWORD"), err);
        assertTrue(requests.isEmpty());
    }

    @Test
    void aConfigFileOthersCanReadIsWarnedAboutOnStderr() throws IOException {
        Path file = home.resolve("cli.properties");
        Files.writeString(file, "user=viewer\npassword=viewer-pw\n");
        Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        answer(200, "{\"steps\":[]}");
        assertEquals(0, lazarusWith(Map.of("LAZARUS_URL", env().get("LAZARUS_URL"), "LAZARUS_CONFIG", file.toString()), "steps", "list"));
        assertTrue(err.startsWith("lazarus: warning: " + file + " can be read by other users"), err);
        assertTrue(only().authorization().equals("Basic " + Base64.getEncoder().encodeToString("viewer:viewer-pw".getBytes(StandardCharsets.UTF_8))));
    }

    @Test
    void eventsTailTakesAnArrayOrAnObjectWithItsItems() {
        answer(200, "[{\"id\":5,\"type\":\"DEAD_LETTERED\",\"at\":\"2026-11-22T06:00:00Z\",\"pipeline\":\"p\",\"step\":\"s\",\"runId\":\"r\","
                + "\"reason\":\"RETRIES_EXHAUSTED\",\"actor\":\"system\"}]");
        assertEquals(0, lazarus("events", "tail", "--after", "4", "--limit", "10"));
        assertEquals(Map.of("after", "4", "limit", "10"), only().query());
        assertEquals("/lazarus/api/events", only().path());
        assertTrue(out.matches("5\\s+2026-11-22T06:00:00Z\\s+DEAD_LETTERED\\s+p/s\\s+r\\s+RETRIES_EXHAUSTED\\s+system\\s*"), out);

        requests.clear();
        answer(200, "{\"items\":[{\"id\":6,\"type\":\"REQUEUED\"},{\"id\":7,\"type\":\"RESOLVED\"}]}");
        assertEquals(0, lazarus("events", "tail", "--json"));
        assertEquals(List.of("{\"id\":6,\"type\":\"REQUEUED\"}", "{\"id\":7,\"type\":\"RESOLVED\"}"), out.lines().toList(), "one event a line");
    }

    @Test
    void eventsTailFollowPollsFromTheLastEventItSawUntilInterrupted() throws InterruptedException {
        answer(200, "[{\"id\":5,\"type\":\"DEAD_LETTERED\"}]");
        answer(503, "{\"title\":\"Service Unavailable\"}");
        answer(200, "{\"items\":[{\"id\":6,\"type\":\"REQUEUED\"}]}");
        always = new Answer(200, "application/json", "[]");
        int[] exit = {-1};
        Thread tail = new Thread(() -> exit[0] = lazarus("events", "tail", "--follow", "--interval", "1", "--json"));
        tail.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (requests.size() < 4 && System.nanoTime() < deadline) {
            Thread.sleep(50); // waits for the tail's own polls: it sleeps a second between them
        }
        tail.interrupt();
        tail.join(10_000);
        assertFalse(tail.isAlive());
        assertEquals(0, exit[0]);
        assertEquals(List.of("{\"id\":5,\"type\":\"DEAD_LETTERED\"}", "{\"id\":6,\"type\":\"REQUEUED\"}"), out.lines().toList());
        assertEquals(null, requests.get(0).query().get("after"));
        assertEquals("5", requests.get(1).query().get("after"));
        assertEquals("5", requests.get(2).query().get("after"), "after the server failed it asks again from the same event");
        assertEquals("6", requests.get(3).query().get("after"));
        assertEquals(1, err.lines().count(), "the failure is said once: " + err);
        assertTrue(err.contains("503 Service Unavailable; trying again every 1 s"), err);
    }

    @Test
    void aShownRunHasItsFieldsStepsAndDeadLetterAndWithHistoryItsTimeline() {
        answer(200, "{\"id\":\"" + RUN + "\",\"pipeline\":\"document-ingestion\",\"state\":\"DEAD_LETTERED\",\"currentStep\":\"parse\","
                + "\"generation\":3,\"requeueCount\":0,\"payload\":{\"url\":\"u\"},\"steps\":[{\"step\":\"parse\",\"generation\":3,"
                + "\"state\":\"FAILED\",\"attempts\":3,\"lastError\":\"boom\"}],\"deadLetter\":{\"id\":42,\"reason\":\"RETRIES_EXHAUSTED\","
                + "\"status\":\"PENDING\",\"errorMessage\":\"boom\"}}");
        answer(200, "{\"run\":{},\"dispatches\":[],\"timeline\":[{\"at\":\"2026-11-22T06:00:00Z\",\"kind\":\"DEAD_LETTER\",\"step\":\"parse\","
                + "\"generation\":3,\"text\":\"dead-lettered: RETRIES_EXHAUSTED\"}]}");
        assertEquals(0, lazarus("runs", "show", RUN, "--history"));
        assertTrue(out.contains("DEAD_LETTERED at parse (generation 3, requeued 0 times)"), out);
        assertTrue(out.contains("42: RETRIES_EXHAUSTED, PENDING - boom"), out);
        assertTrue(out.lines().anyMatch(line -> line.matches("parse\\s+3\\s+FAILED\\s+3\\s+-\\s+boom")), out);
        assertTrue(out.lines().anyMatch(line -> line.matches("2026-11-22T06:00:00Z\\s+DEAD_LETTER\\s+parse\\s+3\\s+dead-lettered: RETRIES_EXHAUSTED")), out);
        assertEquals("/lazarus/api/runs/" + RUN + "/history", requests.get(1).path());
    }
}
