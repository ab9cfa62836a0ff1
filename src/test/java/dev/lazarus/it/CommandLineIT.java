package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.cli.Lazarus;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The command-line client against the real server: the jar {@code mvn package} built, run as a process as an operator
 * runs it ({@code java -jar target/lazarus-cli.jar}, the URL and credentials in its environment), its output and exit
 * code checked.
 */
class CommandLineIT extends LazarusIT {

    private static final Path REPOSITORY = Path.of(System.getProperty("it.repo.dir", "."));
    private static final Path JAR = REPOSITORY.resolve("target").resolve("lazarus-cli.jar");
    private static final String POISON = "{\"failures\":{\"parse\":{\"mode\":\"always\"}}}";

    /** What a run of the client did. */
    record Result(int exit, String out, String err) {

        JsonObject json() {
            return Json.createReader(new StringReader(out)).readObject();
        }

        List<JsonObject> items() {
            return json().getJsonArray("items").stream().map(JsonValue::asJsonObject).toList();
        }

        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private Result asOperator(String... args) {
        return lazarus(credentials("operator", "operator-pw"), args);
    }

    private Result asViewer(String... args) {
        return lazarus(credentials("viewer", "viewer-pw"), args);
    }

    private static Map<String, String> credentials(String user, String password) {
        return Map.of("LAZARUS_USER", user, "LAZARUS_PASSWORD", password);
    }

    /** {@code java -jar target/lazarus-cli.jar args} with the test server's URL, an empty config file and {@code env}. */
    private Result lazarus(Map<String, String> env, String... args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", JAR.toString()));
        command.addAll(List.of(args));
        return run(command, env);
    }

    private Result run(List<String> command, Map<String, String> env) {
        assertTrue(Files.isRegularFile(JAR), JAR + " is built by mvn package, before the integration tests");
        try {
            Path dir = Files.createTempDirectory("lazarus-cli");
            Path config = Files.createFile(dir.resolve("cli.properties"),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(dir.resolve("out").toFile())
                    .redirectError(dir.resolve("err").toFile()).redirectInput(ProcessBuilder.Redirect.PIPE);
            Map<String, String> environment = builder.environment();
            environment.keySet().removeIf(name -> name.startsWith("LAZARUS_")); // only what the test gives
            environment.put("LAZARUS_URL", base.toString());
            environment.put("LAZARUS_CONFIG", config.toString()); // never the machine's own ~/.config/lazarus
            environment.putAll(env);
            Process process = builder.start();
            process.getOutputStream().close();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("lazarus " + command + " did not end within 60 s");
            }
            return new Result(process.exitValue(), Files.readString(dir.resolve("out")), Files.readString(dir.resolve("err")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void assertExit(int expected, Result result) {
        assertEquals(expected, result.exit(), result.toString());
    }

    private JsonObject poisonedDeadLetter(String runId) {
        return awaitRun(runId, "DEAD_LETTERED").getJsonObject("deadLetter");
    }

    @Test
    void deadLettersListAsJsonByReasonHasThePoisonRunsDeadLetterAndTheTableAndTheDetailShowIt() {
        String run = operator.startRun(POISON);
        JsonObject deadLetter = poisonedDeadLetter(run);
        long id = deadLetter.getJsonNumber("id").longValue();

        Result listed = asViewer("dead-letters", "list", "--json", "--reason", "RETRIES_EXHAUSTED", "--limit", "500");
        assertExit(0, listed);
        assertEquals("", listed.err());
        assertTrue(listed.items().stream().allMatch(d -> "RETRIES_EXHAUSTED".equals(d.getString("reason"))), listed.out());
        assertTrue(listed.items().stream().anyMatch(d -> d.getJsonNumber("id").longValue() == id && run.equals(d.getString("runId"))),
                "the poison run's dead letter is listed: " + listed.out());

        Result ofTheRun = asViewer("--json", "dead-letters", "list", "--reason", "RETRIES_EXHAUSTED", "--run", run, "--status", "OPEN");
        assertExit(0, ofTheRun);
        assertEquals(List.of(id), ofTheRun.items().stream().map(d -> d.getJsonNumber("id").longValue()).toList(), ofTheRun.out());

        Result table = asViewer("dead-letters", "list", "--run", run);
        assertExit(0, table);
        assertTrue(table.out().startsWith("ID "), table.out());
        assertTrue(table.out().lines().anyMatch(line -> line.startsWith(id + " ") && line.contains("RETRIES_EXHAUSTED") && line.contains(run)
                && line.contains("parse")), table.out());
        assertTrue(table.out().contains("1-1 of 1 dead letters"), table.out());

        Result shown = asViewer("dead-letters", "show", String.valueOf(id));
        assertExit(0, shown);
        assertTrue(shown.out().contains("RETRIES_EXHAUSTED") && shown.out().contains(run) && shown.out().contains("CREATED"), shown.out());

        Result dryRun = asOperator("jobs", "start", "--dry-run", "--action", "requeue", "--run", run);
        assertExit(0, dryRun);
        assertTrue(dryRun.out().startsWith("would requeue 1 open dead letters"), dryRun.out());

        Result causes = asViewer("dead-letters", "causes", "--run", run, "--json");
        assertExit(0, causes);
        assertEquals(1, causes.json().getInt("deadLetters"), causes.out());
    }

    @Test
    void runsShowPrintsTheRunItsStepsAndWithHistoryItsTimeline() {
        String run = operator.startRun("{}");
        awaitRun(run, "COMPLETED");

        Result shown = asViewer("runs", "show", run);
        assertExit(0, shown);
        assertTrue(shown.out().lines().anyMatch(line -> line.matches("run\\s+" + run)), shown.out());
        assertTrue(shown.out().lines().anyMatch(line -> line.matches("state\\s+COMPLETED.*")), shown.out());
        for (String step : List.of("fetch", "parse", "index")) {
            assertTrue(shown.out().lines().anyMatch(line -> line.matches(step + "\\s+\\d+\\s+COMPLETED\\s+\\d+\\s.*")), step + ": " + shown.out());
        }

        Result json = asViewer("runs", "show", run, "--json");
        assertExit(0, json);
        assertEquals(run, json.json().getString("id"));
        assertEquals("COMPLETED", json.json().getString("state"));

        Result history = asViewer("runs", "show", run, "--history", "--json");
        assertExit(0, history);
        assertEquals(run, history.json().getJsonObject("run").getString("id"));
        assertFalse(history.json().getJsonObject("history").getJsonArray("timeline").isEmpty(), history.out());

        Result listed = asViewer("runs", "list", "--json", "--pipeline", "document-ingestion", "--state", "COMPLETED", "--limit", "500");
        assertExit(0, listed);
        assertTrue(listed.items().stream().anyMatch(r -> run.equals(r.getString("id"))), listed.out());
    }

    @Test
    void stepsListShowsEveryStepOfTheDemoPipeline() {
        Result listed = asViewer("steps", "list");
        assertExit(0, listed);
        for (String step : List.of("fetch", "parse", "index")) {
            assertTrue(listed.out().lines().anyMatch(line -> line.matches("document-ingestion\\s+" + step + "\\s+(RUNNING|PAUSED|HELD)\\s.*")),
                    step + ": " + listed.out());
        }
        Result json = asViewer("steps", "list", "--json");
        assertExit(0, json);
        assertTrue(json.json().getJsonArray("steps").size() >= 3, json.out());
    }

    private String stateOfIndex() {
        return viewer.get("api/steps").ok().json().getJsonArray("steps").stream().map(JsonValue::asJsonObject)
                .filter(s -> "document-ingestion".equals(s.getString("pipeline")) && "index".equals(s.getString("step")))
                .findFirst().orElseThrow().getString("state");
    }

    @Test
    void anOperatorPausesAndResumesAStepAndAViewerMayNot() {
        assertEquals("RUNNING", stateOfIndex());
        Result refused = asViewer("steps", "pause", "document-ingestion", "index", "--note", "a viewer tries");
        assertExit(4, refused);
        assertEquals(1, refused.err().lines().count(), refused.err());
        assertTrue(refused.err().startsWith("lazarus: 403 Forbidden: this action needs the operator role"), refused.err());
        assertEquals("RUNNING", stateOfIndex(), "a refused pause changes nothing");

        try {
            Result paused = asOperator("steps", "pause", "document-ingestion", "index", "--note", "command-line test");
            assertExit(0, paused);
            assertTrue(paused.out().lines().anyMatch(line -> line.matches("document-ingestion\\s+index\\s+PAUSED\\s.*operator.*command-line test")),
                    paused.out());
            assertEquals("PAUSED", stateOfIndex());

            Result resumed = asOperator("steps", "resume", "document-ingestion", "index");
            assertExit(0, resumed);
            assertTrue(resumed.out().lines().anyMatch(line -> line.matches("document-ingestion\\s+index\\s+RUNNING\\s.*")), resumed.out());
            assertEquals("RUNNING", stateOfIndex());
        } finally {
            if (!"RUNNING".equals(stateOfIndex())) {
                operator.post("api/steps/document-ingestion/index/resume", "{\"note\":\"CommandLineIT cleans up\"}").ok();
            }
        }
    }

    @Test
    void whatDoesNotExistIsExitThreeWithTheServersWords() {
        String unknown = UUID.randomUUID().toString();
        Result run = asViewer("runs", "show", unknown);
        assertExit(3, run);
        assertEquals("lazarus: 404 Not found: no run " + unknown + "\n", run.err());
        assertEquals("", run.out());
        assertExit(3, asViewer("runs", "show", "not-a-run-id"));
        assertExit(3, asViewer("dead-letters", "show", "999999999"));
        assertExit(3, asViewer("jobs", "show", "999999999"));
        assertExit(3, asOperator("steps", "pause", "document-ingestion", "no-such-step", "--note", "x"));
    }

    @Test
    void aRefusedRequestIsExitOneAndAMistypedCommandExitTwo() {
        Result refused = asViewer("dead-letters", "list", "--reason", "NO_SUCH_REASON");
        assertExit(1, refused);
        assertTrue(refused.err().startsWith("lazarus: 400 ") && refused.err().contains("reason must be one of"), refused.err());
        assertExit(2, asViewer("dead-letters", "lsit"));
        assertExit(2, asViewer("runs", "stop", UUID.randomUUID().toString()));  // --note is required
    }

    @Test
    void withoutCredentialsItSaysWhatToSetAndExitsFourAndSoWithWrongOnes() {
        Result none = lazarus(Map.of(), "runs", "list");
        assertExit(4, none);
        assertEquals(1, none.err().lines().count(), none.err());
        assertTrue(none.err().contains("set LAZARUS_USER and LAZARUS_PASSWORD"), none.err());

        Result wrong = lazarus(credentials("operator", "not-the-password"), "runs", "list");
        assertExit(4, wrong);
        assertEquals("lazarus: 401 Unauthorized: wrong user name or password\n", wrong.err());
    }

    @Test
    void everyCommandAndSubcommandAnswersHelpAndTheLauncherRunsTheJar() {
        List<String> paths = new ArrayList<>();
        collect(Lazarus.commandLine(Map.of(), REPOSITORY), "", paths);
        assertTrue(paths.size() > 20, paths.toString());
        for (String path : paths) {
            List<String> args = new ArrayList<>(path.isEmpty() ? List.of() : List.of(path.split(" ")));
            args.add("--help");
            Result help = lazarus(Map.of(), args.toArray(String[]::new));
            assertExit(0, help);
            assertTrue(help.out().contains("Usage: lazarus " + path), path + ": " + help.out()); // the help command opens with what it does
        }
        Result version = run(List.of("bash", REPOSITORY.resolve("bin").resolve("lazarus").toString(), "--version"), Map.of());
        assertExit(0, version);
        assertTrue(version.out().matches("lazarus \\d+\\.\\d+\\.\\d+\\S*\\s+Java .*\\s*"), version.out()); // the jar's version: mvn package built it
    }

    private static void collect(CommandLine command, String path, List<String> paths) {
        paths.add(path);
        command.getSubcommands().forEach((name, sub) -> collect(sub, (path + " " + name).trim(), paths));
    }

    @Test
    void theWarCarriesNothingOfTheClient() throws IOException {
        try (ZipFile war = new ZipFile(System.getProperty("it.war", "target/lazarus.war"))) {
            List<String> client = war.stream().map(java.util.zip.ZipEntry::getName)
                    .filter(name -> name.contains("picocli") || name.contains("dev/lazarus/cli/")).toList();
            assertEquals(List.of(), client);
        }
    }

    // --- the endpoints other parts of issue #23 add: enable each when its part is merged

    @Test
    void runsAndDeadLettersAreFoundByKeyLabelAndPayloadField() {
        String key = "order-" + UUID.randomUUID();
        String customer = String.valueOf(System.nanoTime());
        Api.Response created = operator.post("api/runs", "{\"pipeline\":\"document-ingestion\",\"key\":\"" + key + "\",\"labels\":[\"cli-test\"],"
                + "\"payload\":{\"customer\":{\"id\":\"" + customer + "\"},\"failures\":{\"parse\":{\"mode\":\"always\"}}}}");
        assertEquals(201, created.status(), created.body());
        String run = created.json().getString("id");
        long deadLetter = poisonedDeadLetter(run).getJsonNumber("id").longValue();

        for (String[] search : List.of(new String[] {"--key", key}, new String[] {"--payload", "customer.id=" + customer})) {
            Result runs = asViewer("runs", "list", "--json", search[0], search[1]);
            assertExit(0, runs);
            assertEquals(List.of(run), runs.items().stream().map(r -> r.getString("id")).toList(), runs.out());
            Result deadLetters = asViewer("dead-letters", "list", "--json", search[0], search[1]);
            assertExit(0, deadLetters);
            assertEquals(List.of(deadLetter), deadLetters.items().stream().map(d -> d.getJsonNumber("id").longValue()).toList(), deadLetters.out());
        }
        Result labelled = asViewer("runs", "list", "--json", "--label", "cli-test", "--limit", "500");
        assertExit(0, labelled);
        assertTrue(labelled.items().stream().anyMatch(r -> run.equals(r.getString("id"))), labelled.out());
    }

    @Test
    void retryNowRetriesARunWaitingInItsBackoffAndRefusesOneThatIsNot() {
        // a minute's backoff on fetch, so the run still waits when the client (a JVM of its own) gets to ask
        String original = broker.addressSettings(FETCH);
        JsonObject settings = Json.createReader(new StringReader(original)).readObject();
        broker.setAddressSettings(FETCH, Json.createObjectBuilder(settings).add("redeliveryDelay", 60_000)
                .add("maxRedeliveryDelay", 60_000).build().toString());
        try {
            String run = operator.startRun("{\"failures\":{\"fetch\":{\"mode\":\"transient\",\"succeedOnAttempt\":2}}}");
            Await.until("run " + run + " to wait for its retry", Duration.ofSeconds(60), () -> viewer.run(run),
                    r -> "RETRYING".equals(r.getString("state")));
            assertExit(4, asViewer("runs", "retry-now", run));
            assertExit(0, asOperator("runs", "retry-now", run));
            awaitRun(run, "COMPLETED");
            assertExit(1, asOperator("runs", "retry-now", run)); // completed: nothing waits (409)
        } finally {
            broker.setAddressSettings(FETCH, original);
        }
    }

    @Test
    void recreateStartsANewRunFromADeadLetterWithAnEditedPayload() throws IOException {
        String run = operator.startRun(POISON);
        long deadLetter = poisonedDeadLetter(run).getJsonNumber("id").longValue();
        Path payload = Files.createTempFile("payload", ".json");
        Files.writeString(payload, "{\"url\":\"https://docs.example.org/faq.html\"}");
        Result recreated = asOperator("dead-letters", "recreate", String.valueOf(deadLetter), "--payload-file", payload.toString(), "--json");
        assertExit(0, recreated);
        String newRun = recreated.json().getString("id");
        assertFalse(run.equals(newRun));
        awaitRun(newRun, "COMPLETED");
    }

    @Test
    void resolvingRecordsTheRootCause() {
        String run = operator.startRun(POISON);
        long deadLetter = poisonedDeadLetter(run).getJsonNumber("id").longValue();
        Result resolved = asOperator("dead-letters", "resolve", String.valueOf(deadLetter), "--root-cause", "BAD_DATA", "--note", "bad input",
                "--json");
        assertExit(0, resolved);
        assertEquals("RESOLVED_MANUALLY", resolved.json().getString("status"));
        assertEquals("BAD_DATA", resolved.json().getString("rootCause"));
        assertExit(1, asOperator("dead-letters", "resolve", String.valueOf(deadLetter), "--root-cause", "NOT_A_CAUSE"));
    }

    @Test
    void eventsTailShowsThePoisonRunsDeadLetter() {
        Result before = asViewer("events", "tail", "--json", "--limit", "500");
        assertExit(0, before);
        String last = before.out().lines().reduce((a, b) -> b).map(line -> Json.createReader(new StringReader(line)).readObject())
                .map(event -> event.get("id").toString().replace("\"", "")).orElse(null);
        String run = operator.startRun(POISON);
        poisonedDeadLetter(run);
        Result after = Await.until("the dead letter's event", Duration.ofSeconds(30),
                () -> last == null ? asViewer("events", "tail", "--json", "--limit", "500") : asViewer("events", "tail", "--json", "--after", last),
                r -> r.out().contains(run));
        assertExit(0, after);
        Map<String, Object> seen = new HashMap<>();
        after.out().lines().map(line -> Json.createReader(new StringReader(line)).readObject())
                .filter(event -> run.equals(event.getString("runId", null))).forEach(event -> seen.put(event.getString("type"), event));
        assertFalse(seen.isEmpty(), after.out());
    }
}
