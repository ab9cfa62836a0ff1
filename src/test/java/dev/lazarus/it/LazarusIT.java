package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.File;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import java.net.URL;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Base of the black-box integration tests: deploys the WAR the build produced, unchanged, to the managed
 * WildFly (which talks to the real standalone Artemis broker and the real database), and gives each test
 * HTTP clients for the three kinds of caller and a JMS client to the broker.
 */
@ExtendWith(ArquillianExtension.class)
public abstract class LazarusIT {

    @ArquillianResource
    protected URL base;

    protected Api operator;
    protected Api viewer;
    protected Api anonymous;
    protected final Broker broker = new Broker(Integer.getInteger("it.broker.port", 61716));

    @Deployment(testable = false)
    public static WebArchive deployment() {
        return ShrinkWrap.createFromZipFile(WebArchive.class, new File(System.getProperty("it.war", "target/lazarus.war")));
    }

    protected static final String FETCH = "lazarus.document-ingestion.fetch";
    protected static final String PARSE = "lazarus.document-ingestion.parse";
    protected static final String INDEX = "lazarus.document-ingestion.index";

    /** Waits until the run reaches {@code state} and returns it as the API shows it. */
    protected JsonObject awaitRun(String runId, String state) {
        return Await.until("run " + runId + " to be " + state, Duration.ofSeconds(60),
                () -> viewer.run(runId), run -> state.equals(run.getString("state")));
    }

    /**
     * Waits until the demo pipeline's step queues are empty: for a test that started a thousand runs, so that the classes
     * after it (which share the server, in an order the build does not fix) do not wait behind its backlog at their 60-s
     * bounds. Messages waiting out a retry's delay count too, so no run of the test is still on its way either.
     */
    protected void awaitStepQueuesDrained() {
        Await.until("the step queues to be drained", Duration.ofMinutes(3),
                () -> broker.messageCount(FETCH) + broker.messageCount(PARSE) + broker.messageCount(INDEX), n -> n == 0);
    }

    /**
     * Requeues a run that fails every time until the loop guard parks it (the test server allows 2 requeues per
     * run, arquillian.xml); checks each dead letter with {@code eachDeadLetter} and returns the last, parked one.
     */
    protected JsonObject requeueUntilTheLoopGuardParks(String runId, java.util.function.Consumer<JsonObject> eachDeadLetter) {
        for (int requeue = 1; requeue <= 2; requeue++) {
            JsonObject deadLetter = awaitRun(runId, "DEAD_LETTERED").getJsonObject("deadLetter");
            eachDeadLetter.accept(deadLetter);
            operator.post("api/dead-letters/" + deadLetter.getInt("id") + "/requeue", "").ok();
            int expected = requeue;
            Await.until("requeue " + requeue + " to fail again", Duration.ofSeconds(60), () -> viewer.run(runId),
                    r -> r.getInt("requeueCount") == expected && "DEAD_LETTERED".equals(r.getString("state")));
        }
        return viewer.run(runId).getJsonObject("deadLetter");
    }

    /** The run's step executions for {@code step}, oldest first. */
    protected static List<JsonObject> executions(JsonObject run, String step) {
        return run.getJsonArray("steps").stream().map(JsonValue::asJsonObject)
                .filter(s -> step.equals(s.getString("step"))).toList();
    }

    @BeforeEach
    void clients() {
        operator = new Api(base, "operator", "operator-pw");
        viewer = new Api(base, "viewer", "viewer-pw");
        anonymous = new Api(base, null, null);
    }

    /** Every run the server knows. */
    protected long runCount() {
        return viewer.get("api/runs?limit=1").ok().json().getJsonNumber("total").longValue();
    }

    /** The request is refused with a problem of {@code status} whose detail mentions {@code detailMentions}, storing no run. */
    protected void assertRefused(Supplier<Api.Response> request, int status, String detailMentions) {
        long before = runCount();
        Api.Response response = request.get();
        assertEquals(status, response.status(), response.body());
        assertEquals("application/problem+json", response.contentType());
        assertEquals(status, response.json().getInt("status"));
        assertTrue(response.json().getString("detail").contains(detailMentions), response.json().getString("detail"));
        assertEquals(before, runCount(), "a refused request stores no run");
    }
}
