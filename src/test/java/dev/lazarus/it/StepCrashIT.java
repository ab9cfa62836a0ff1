package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.it.Api.Response;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.File;
import java.net.URI;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jboss.arquillian.container.test.api.ContainerController;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.TargetsContainer;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The hot path's crash points: no transaction spans a delivery, so a step's record commits first, its next message is
 * sent after, and the delivery is acknowledged last (and a submission commits its run before its first message is
 * sent). WildFly is halted at each point in turn (a Byteman rule, see {@code src/test/resources/crash}), started again,
 * and the run under test must complete with every step's handler having committed once, every message sent once, and
 * no dead letter.
 *
 * <p>Runs in the failsafe execution "crash" (it kills its server); skipped elsewhere.
 */
@EnabledIfSystemProperty(named = "arquillian.launch", matches = "crashable")
@ExtendWith(ArquillianExtension.class)
class StepCrashIT {

    private static final String CONTAINER = "crashable";
    private static final String FETCH_QUEUE = "lazarus.document-ingestion.fetch";
    private static final String INDEX_QUEUE = "lazarus.document-ingestion.index";

    @ArquillianResource
    ContainerController containers;

    @ArquillianResource
    Deployer deployer;

    private final Broker broker = new Broker(Integer.getInteger("it.broker.port", 61716));

    @Deployment(name = "lazarus-crash-points", managed = false, testable = false)
    @TargetsContainer(CONTAINER)
    static WebArchive deployment() {
        return ShrinkWrap.createFromZipFile(WebArchive.class, new File(System.getProperty("it.war", "target/lazarus.war")));
    }

    @Test
    void aCrashAfterAStepsRecordCommitsAndBeforeItsNextMessageIsSentIsRepairedByTheRedelivery() throws Exception {
        crashAt("after-commit-before-send", (operator, viewer) -> {
            long indexBefore = broker.messagesAdded(INDEX_QUEUE);
            String run = operator.startRun("{\"url\":\"https://docs.example.org/crash-" + UUID.randomUUID() + ".html\"}");
            awaitCrash("after-commit-before-send");
            restart();
            JsonObject done = awaitEnd(viewer, run);
            assertCommittedOnceEach(viewer, done);
            // parse's record committed without its index message: the redelivery of parse's message found the record
            // (a replay: parse did not run again) and sent the index message, once
            assertEquals(1, broker.messagesAdded(INDEX_QUEUE) - indexBefore, "one index message for the run");
        });
    }

    @Test
    void aCrashAfterTheNextMessageIsSentAndBeforeTheDeliveryIsAcknowledgedSendsNothingTwice() throws Exception {
        crashAt("after-send-before-acknowledge", (operator, viewer) -> {
            long indexBefore = broker.messagesAdded(INDEX_QUEUE);
            String run = operator.startRun("{\"url\":\"https://docs.example.org/crash-" + UUID.randomUUID() + ".html\"}");
            awaitCrash("after-send-before-acknowledge");
            restart();
            JsonObject done = awaitEnd(viewer, run);
            assertCommittedOnceEach(viewer, done);
            // the redelivered parse message is a replay: it sent the index message again with the same duplicate id,
            // and the broker dropped it
            assertEquals(1, broker.messagesAdded(INDEX_QUEUE) - indexBefore, "the index message reached its queue once");
        });
    }

    @Test
    void aCrashAfterASubmissionCommitsAndBeforeItsFirstMessageIsSentIsRepairedByTheRestartedServer() throws Exception {
        crashAt("after-submission-before-send", (operator, viewer) -> {
            long fetchBefore = broker.messagesAdded(FETCH_QUEUE);
            String key = "crash-" + UUID.randomUUID();
            String body = "{\"pipeline\":\"document-ingestion\",\"payload\":{\"url\":\"https://docs.example.org/" + key + ".html\"}}";
            Response retried = submitAcrossTheCrash(operator, "after-submission-before-send", body, key);
            assertEquals(200, retried.status(), "the earlier submission's run: " + retried.body());
            String run = retried.json().getString("id");
            // no one sent its first message: the restarted server's dispatch recovery did, for its previous incarnation
            JsonObject done = awaitEnd(viewer, run);
            assertCommittedOnceEach(viewer, done);
            assertEquals(1, broker.messagesAdded(FETCH_QUEUE) - fetchBefore, "one fetch message for the run");
        });
    }

    @Test
    void aCrashAfterAFailedFirstDeliveryRolledBackAndBeforeItsAttemptIsWrittenCostsAtMostTheUncountedAttempt() throws Exception {
        crashAt("after-failure-before-attempt", (operator, viewer) -> {
            // fetch fails on its first attempt and succeeds on its second
            String key = "crash-" + UUID.randomUUID();
            String body = "{\"pipeline\":\"document-ingestion\",\"payload\":{\"url\":\"https://docs.example.org/" + key + ".html\","
                    + "\"failures\":{\"fetch\":{\"mode\":\"transient\",\"succeedOnAttempt\":2}}}}";
            Response stored = submitAcrossTheCrash(operator, "after-failure-before-attempt", body, key); // fetch fails at once
            String run = stored.json().getString("id");
            JsonObject done = awaitEnd(viewer, run);
            // the crashed attempt was never written: the redelivery ran as attempt 1 again (and failed), the next as
            // attempt 2; the run completes, within its policy, with no dead letter and no effect twice
            assertEquals("COMPLETED", done.getString("state"), done.toString());
            Map<String, Integer> attempts = done.getJsonArray("steps").stream().map(JsonValue::asJsonObject)
                    .collect(Collectors.toMap(s -> s.getString("step"), s -> s.getInt("attempts"), Integer::sum));
            assertEquals(Map.of("fetch", 2, "parse", 1, "index", 1), attempts, "the crashed attempt uncounted: " + done);
            assertEquals(0, viewer.get("api/dead-letters?runId=" + run).ok().json().getInt("total"));
            assertEquals(0, viewer.get("api/demo/index-effects").ok().json().getInt("duplicateEffects"));
        });
    }

    // ---- helpers ----

    @FunctionalInterface
    private interface Scenario {
        void run(Api operator, Api viewer) throws Exception;
    }

    /** Starts the server with {@code point} armed, runs the scenario, and stops the server, disarmed, whatever happened. */
    private void crashAt(String point, Scenario scenario) throws Exception {
        Path dir = Path.of(System.getProperty("crash.dir"));
        Files.createDirectories(dir);
        Files.deleteIfExists(dir.resolve(point + ".fired"));
        Files.writeString(dir.resolve(point), "armed by " + getClass().getSimpleName());
        containers.start(CONTAINER);
        try {
            deployer.deploy("lazarus-crash-points");
            URL base = URI.create("http://127.0.0.1:" + Integer.getInteger("it.http.port", 8180) + "/lazarus/").toURL();
            scenario.run(new Api(base, "operator", "operator-pw"), new Api(base, "viewer", "viewer-pw"));
        } finally {
            Files.deleteIfExists(dir.resolve(point));
            try {
                deployer.undeploy("lazarus-crash-points"); // the next crash test deploys the same archive
            } finally {
                containers.stop(CONTAINER);
            }
        }
    }

    private static void awaitCrash(String point) {
        Path fired = Path.of(System.getProperty("crash.dir"), point + ".fired");
        Await.until("the server to halt at " + point, Duration.ofSeconds(90), () -> Files.exists(fired), Boolean::booleanValue);
    }

    /** The server is already dead: this waits for its process to be gone, then starts it again with its state. */
    private void restart() {
        containers.kill(CONTAINER);
        containers.start(CONTAINER);
    }

    private static JsonObject awaitEnd(Api viewer, String run) {
        return Await.until("run " + run + " to end", Duration.ofSeconds(180), () -> probe(viewer, run),
                r -> r != null && !r.getString("state").matches("PENDING|IN_PROGRESS|RETRYING"));
    }

    /** The run completed, each step's handler committed once (one attempt, one index effect), and nothing was dead-lettered. */
    private static void assertCommittedOnceEach(Api viewer, JsonObject run) {
        assertEquals("COMPLETED", run.getString("state"), run.toString());
        Map<String, Integer> attempts = run.getJsonArray("steps").stream().map(JsonValue::asJsonObject)
                .collect(Collectors.toMap(s -> s.getString("step"), s -> s.getInt("attempts"), Integer::sum));
        assertEquals(Map.of("fetch", 1, "parse", 1, "index", 1), attempts, "one committed attempt per step: " + run);
        assertEquals(0, viewer.get("api/dead-letters?runId=" + run.getString("id")).ok().json().getInt("total"));
        JsonObject effects = viewer.get("api/demo/index-effects").ok().json();
        assertEquals(0, effects.getInt("duplicateEffects"), "no index effect committed twice: " + effects);
        assertTrue(run.getJsonArray("steps").size() == 3, "one execution per step: " + run);
    }

    private static JsonObject probe(Api viewer, String run) {
        try {
            return viewer.run(run);
        } catch (RuntimeException notUpYet) {
            return null;
        }
    }

    /**
     * Submits a run whose work reaches the armed point before the server has answered (it may halt first), waits for the
     * halt, restarts the server and submits again with the same key, as a client that got no answer should: the answer
     * names the run that was stored.
     */
    private Response submitAcrossTheCrash(Api operator, String point, String body, String key) {
        try {
            operator.post("api/runs", body, "Idempotency-Key", key);
        } catch (RuntimeException unanswered) {
            // the server halted before it answered
        }
        awaitCrash(point);
        restart();
        return Await.until("the restarted server to answer", Duration.ofSeconds(120),
                () -> tryPost(operator, body, key), r -> r != null && r.status() < 500);
    }

    private static Response tryPost(Api operator, String body, String key) {
        try {
            return operator.post("api/runs", body, "Idempotency-Key", key);
        } catch (RuntimeException notUpYet) {
            return null;
        }
    }
}
