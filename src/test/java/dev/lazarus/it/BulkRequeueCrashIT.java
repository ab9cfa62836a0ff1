package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.it.Api.Response;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.json.JsonObject;
import java.io.File;
import java.net.URI;
import java.net.URL;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * The server dies in the middle of a bulk requeue, at the worst moment: a batch's transaction is prepared on
 * both the database and the broker, its outcome logged, and neither has committed yet (a Byteman rule halts
 * the JVM there, see {@code src/test/resources/crash}). After a restart, with no operator doing anything but
 * starting the same job again, every run must end up requeued exactly once: one message back on its queue,
 * none left in the DLQ, none twice.
 *
 * <p>Runs in its own failsafe execution ("crash") because it kills and restarts its server; elsewhere (where
 * the suite's server is running) it is skipped.
 */
@EnabledIfSystemProperty(named = "arquillian.launch", matches = "crashable")
@ExtendWith(ArquillianExtension.class)
class BulkRequeueCrashIT {

    private static final String CONTAINER = "crashable";
    private static final String PARSE = "lazarus.document-ingestion.parse";
    private static final String DLQ = "DLQ." + PARSE;
    private static final int RUNS = 60;
    /** Batches of ten (a rate-limited job's batch is its rate): the rule halts the server in the third. */
    private static final int RATE = 10;

    @ArquillianResource
    ContainerController containers;

    @ArquillianResource
    Deployer deployer;

    private final Broker broker = new Broker(Integer.getInteger("it.broker.port", 61716));

    @Deployment(name = "lazarus", managed = false, testable = false)
    @TargetsContainer(CONTAINER)
    static WebArchive deployment() {
        return ShrinkWrap.createFromZipFile(WebArchive.class, new File(System.getProperty("it.war", "target/lazarus.war")));
    }

    @Test
    void aServerKilledBetweenPrepareAndCommitOfABatchLosesAndDuplicatesNothing() throws Exception {
        File marker = new File(System.getProperty("crash.marker"));
        marker.delete();
        containers.start(CONTAINER);
        try {
            deployer.deploy("lazarus");
            URL base = URI.create("http://127.0.0.1:" + Integer.getInteger("it.http.port", 8180) + "/lazarus/").toURL();
            Api operator = new Api(base, "operator", "operator-pw");
            Api viewer = new Api(base, "viewer", "viewer-pw");

            // RUNS runs whose parse step fails for good: dead letters with their message parked in the DLQ.
            Instant from = Instant.now();
            List<String> runs = new ArrayList<>();
            for (int i = 0; i < RUNS; i++) {
                runs.add(operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"permanent\"}}}"));
            }
            String filter = "step=parse&reason=NON_RETRYABLE&from=" + URLEncoder.encode(from.toString(), StandardCharsets.UTF_8);
            Await.until(RUNS + " open dead letters", Duration.ofSeconds(120),
                    () -> viewer.get("api/dead-letters?open=true&" + filter).ok().json().getInt("total"), n -> n == RUNS);
            Await.until("their messages in " + DLQ, Duration.ofSeconds(30), () -> messagesPerRun(DLQ, runs).size(), n -> n == RUNS);

            // The parse queue is paused so that every message a requeue sends back stays there to be counted.
            broker.pause(PARSE);
            try {
                Response started = operator.post("api/requeue-jobs", "{\"filter\":{\"step\":\"parse\",\"reason\":\"NON_RETRYABLE\",\"from\":\""
                        + from + "\"},\"ratePerSecond\":" + RATE + "}");
                assertEquals(202, started.status(), started.body());
                String job = started.location().substring(started.location().indexOf("api/"));

                Await.until("the server to halt in the third batch's commit", Duration.ofSeconds(60), marker::exists, Boolean::booleanValue);
                containers.kill(CONTAINER); // it is already dead: this waits for the process to be gone
                containers.start(CONTAINER);

                JsonObject interrupted = Await.until("Lazarus to be back", Duration.ofSeconds(120), () -> probe(viewer, job),
                        j -> j != null && !"RUNNING".equals(j.getString("state")));
                assertEquals("INTERRUPTED", interrupted.getString("state"), "marked at start-up: " + interrupted);

                // Recovery commits the batch that was in doubt, on both sides: three batches are done, each once.
                Await.until("the database and the broker to agree on 30 requeued runs", Duration.ofSeconds(120),
                        () -> tally(viewer, filter, runs), t -> t.requeued() == 3 * RATE && t.inParseQueue() == 3 * RATE
                                && t.open() == RUNS - 3 * RATE && t.inDlq() == RUNS - 3 * RATE);
                assertTrue(messagesPerRun(PARSE, runs).values().stream().allMatch(n -> n == 1), "no run has two messages");
                assertEquals(3 * RATE, viewer.get(job).ok().json().getInt("requeued"), "the job's progress committed with its batch");

                // The operator starts the same filter again: it finishes the rest and touches nothing twice.
                Response again = operator.post("api/requeue-jobs", "{\"filter\":{\"step\":\"parse\",\"reason\":\"NON_RETRYABLE\",\"from\":\""
                        + from + "\"},\"ratePerSecond\":0}");
                assertEquals(202, again.status(), again.body());
                assertEquals(RUNS - 3 * RATE, again.json().getInt("total"));
                String second = again.location().substring(again.location().indexOf("api/"));
                JsonObject done = Await.until("the second job to complete", Duration.ofSeconds(60), () -> viewer.get(second).ok().json(),
                        j -> "COMPLETED".equals(j.getString("state")));
                assertEquals(RUNS - 3 * RATE, done.getInt("requeued"), done.toString());

                Tally end = tally(viewer, filter, runs);
                assertEquals(new Tally(RUNS, 0, RUNS, 0), end, "every run requeued once, its message back on " + PARSE);
                Map<String, Integer> inQueue = messagesPerRun(PARSE, runs);
                assertEquals(Set.copyOf(runs), inQueue.keySet(), "one message for every run");
                assertTrue(inQueue.values().stream().allMatch(n -> n == 1), "and only one: " + inQueue);
                for (String run : runs) {
                    assertEquals(1, viewer.run(run).getInt("requeueCount"), "run " + run + " was requeued once");
                }
            } finally {
                broker.resume(PARSE);
            }
            // the requeued runs fail again at once (for good): their messages consumed before the next crash test's
            // deployment, whose counts of the queues' messages they would otherwise be in
            Await.until("the requeued runs' messages consumed", Duration.ofSeconds(120), () -> messagesPerRun(PARSE, runs).size(), n -> n == 0);
        } finally {
            try {
                deployer.undeploy("lazarus"); // the other crash test deploys the same archive
            } finally {
                containers.stop(CONTAINER);
            }
        }
    }

    /** The job as the API shows it, or null while the server is still starting. */
    private static JsonObject probe(Api viewer, String job) {
        try {
            Response response = viewer.get(job);
            return response.status() == 200 ? response.json() : null;
        } catch (RuntimeException notUpYet) {
            return null;
        }
    }

    /** Dead letters by state (from the API) and messages by place (from the broker), for the test's runs. */
    private Tally tally(Api viewer, String filter, List<String> runs) {
        int requeued = viewer.get("api/dead-letters?status=REQUEUED&" + filter).ok().json().getInt("total");
        int open = viewer.get("api/dead-letters?open=true&" + filter).ok().json().getInt("total");
        return new Tally(requeued, open, messagesPerRun(PARSE, runs).size(), messagesPerRun(DLQ, runs).size());
    }

    private record Tally(int requeued, int open, int inParseQueue, int inDlq) {
    }

    /** How many messages each of the runs has in {@code queue} (runs without any are left out). */
    private Map<String, Integer> messagesPerRun(String queue, List<String> runs) {
        String selector = "lazarusRunId IN (" + runs.stream().map(id -> "'" + id + "'").collect(Collectors.joining(",")) + ")";
        Map<String, Integer> counts = new HashMap<>();
        for (Message message : broker.browse(queue, selector)) {
            try {
                counts.merge(message.getStringProperty("lazarusRunId"), 1, Integer::sum);
            } catch (JMSException e) {
                throw new IllegalStateException(e);
            }
        }
        return counts;
    }
}
