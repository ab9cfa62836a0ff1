package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.it.Api.Response;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.File;
import java.net.URI;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
 * WildFly killed with {@code kill -9} while runs are busy in a slow step, then started again with its state:
 * a crash spends no run's attempts. While the restarted server starts, its message-driven beans receive
 * deliveries it rolls back before any step runs, and the broker counts each one; every run must still
 * complete, none may be dead-lettered, and no step may have run twice for one dispatch after it finished.
 *
 * <p>Runs in the failsafe execution "crash" (it kills its server); skipped elsewhere.
 */
@EnabledIfSystemProperty(named = "arquillian.launch", matches = "crashable")
@ExtendWith(ArquillianExtension.class)
class RestartCrashIT {

    private static final String CONTAINER = "crashable";
    private static final int RUNS = 60;

    @ArquillianResource
    ContainerController containers;

    @ArquillianResource
    Deployer deployer;

    @Deployment(name = "lazarus-restart", managed = false, testable = false)
    @TargetsContainer(CONTAINER)
    static WebArchive deployment() {
        return ShrinkWrap.createFromZipFile(WebArchive.class, new File(System.getProperty("it.war", "target/lazarus.war")));
    }

    @Test
    void aServerKilledWhileRunsAreBusyDeadLettersNoneOfThemAfterItsRestart() throws Exception {
        containers.start(CONTAINER);
        try {
            deployer.deploy("lazarus-restart");
            URL base = URI.create("http://127.0.0.1:" + Integer.getInteger("it.http.port", 8180) + "/lazarus/").toURL();
            Api operator = new Api(base, "operator", "operator-pw");
            Api viewer = new Api(base, "viewer", "viewer-pw");

            List<String> runs = new ArrayList<>();
            for (int i = 0; i < RUNS; i++) {
                runs.add(operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"hang\",\"seconds\":2}}}"));
            }
            Await.until("runs busy in parse", Duration.ofSeconds(60),
                    () -> viewer.get("api/runs?state=IN_PROGRESS&limit=1").ok().json().getInt("total"), n -> n >= 8);

            containers.kill(CONTAINER);
            containers.start(CONTAINER);

            Map<String, Integer> ends = Await.until("every run to end", Duration.ofSeconds(240), () -> ends(viewer, runs),
                    e -> e.getOrDefault("live", 0) == 0);
            assertEquals(Map.of("COMPLETED", RUNS), ends, "a crash dead-letters no healthy run");
            for (String id : runs) {
                Response deadLetters = viewer.get("api/dead-letters?runId=" + id);
                assertEquals(0, deadLetters.ok().json().getInt("total"), "run " + id + ": " + deadLetters.body());
                JsonObject run = viewer.run(id);
                List<JsonObject> index = run.getJsonArray("steps").stream().map(JsonValue::asJsonObject)
                        .filter(s -> "index".equals(s.getString("step"))).toList();
                assertEquals(1, index.size(), "one dispatch of index for run " + id);
                assertTrue(index.get(0).getInt("attempts") <= 2, "index ran at most once more, if the kill caught it: " + run);
            }
        } finally {
            try {
                deployer.undeploy("lazarus-restart"); // the crash test after this one deploys the same archive
            } finally {
                containers.stop(CONTAINER);
            }
        }
    }

    /** How many of the runs are in each end state, and how many are still live; null while the server starts. */
    private static Map<String, Integer> ends(Api viewer, List<String> runs) {
        Map<String, Integer> ends = new TreeMap<>();
        try {
            for (String id : runs) {
                String state = viewer.run(id).getString("state");
                ends.merge("COMPLETED".equals(state) || "DEAD_LETTERED".equals(state) ? state : "live", 1, Integer::sum);
            }
            return ends;
        } catch (RuntimeException notUpYet) {
            return Map.of("live", runs.size());
        }
    }
}
