package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.enterprise.inject.spi.CDI;
import jakarta.json.JsonObject;
import java.io.File;
import java.net.URI;
import java.net.URL;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A follower of {@code GET /api/events?after=} misses no event of a change that commits after a younger one: event ids
 * come from a sequence when the change writes its event, so the older change's event has the lower id and becomes
 * readable last. Read by id, the follower moved past it for good; read in the order of the writing transactions, up to
 * the oldest one still running, it is handed out before anything written after it.
 */
@ExtendWith(ArquillianExtension.class)
class EventsFollowIT {

    @Deployment
    static WebArchive deployment() {
        return ShrinkWrap.createFromZipFile(WebArchive.class, new File(System.getProperty("it.war", "target/lazarus.war")))
                .addClasses(EventsFollowIT.class, TestFixtures.class, Await.class, Api.class, Api.Response.class);
    }

    private TestFixtures fixtures;

    @BeforeEach
    void fixtures() {
        fixtures = CDI.current().select(TestFixtures.class).get(); // in the server: the client never runs the tests' bodies
    }

    @AfterEach
    void cleanUp() {
        fixtures.update("delete from lazarus_event where pipeline = 'events-follow-test'");
    }

    @Test
    void anEventWhoseChangeCommitsAfterAYoungerOneIsStillHandedToTheFollower() throws Exception {
        int offset = Integer.getInteger("jboss.socket.binding.port-offset", 0);
        URL base = URI.create("http://127.0.0.1:" + (8080 + offset) + "/lazarus/").toURL();
        Api viewer = new Api(base, "viewer", "viewer-pw");
        long cursor = viewer.get("api/events?limit=1").ok().json().getJsonNumber("last").longValue();
        String older = "older-" + UUID.randomUUID();
        String younger = "younger-" + UUID.randomUUID();

        CountDownLatch written = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService change = Executors.newSingleThreadExecutor();
        try {
            Future<?> underWay = change.submit(() -> {
                fixtures.writeEventAndWait(older, written, release);
                return null;
            });
            assertTrue(written.await(30, TimeUnit.SECONDS), "the older change wrote its event");
            fixtures.update("insert into lazarus_event (id, type, at, body, pipeline) values (nextval('lazarus_event_seq'), 'held', now(), ?,"
                    + " 'events-follow-test')", "{\"marker\":\"" + younger + "\"}"); // committed at once, with the higher id

            JsonObject meanwhile = viewer.get("api/events?after=" + cursor + "&limit=1000").ok().json();
            assertEquals(List.of(), markers(meanwhile), "nothing written after a change still under way is handed out yet");
            cursor = meanwhile.getJsonNumber("last").longValue();

            release.countDown();
            underWay.get(30, TimeUnit.SECONDS);
            long from = cursor;
            // as soon as no transaction older than the two is still running (the server's own timers run beside this test)
            List<String> handedOut = Await.until("both events handed out", java.time.Duration.ofSeconds(30),
                    () -> markers(viewer.get("api/events?after=" + from + "&limit=1000").ok().json()), found -> found.size() == 2);
            assertEquals(List.of(older, younger), handedOut, "both, the older change's first");
        } finally {
            release.countDown();
            change.shutdownNow();
        }
    }

    private static List<String> markers(JsonObject page) {
        return page.getJsonArray("events").getValuesAs(JsonObject.class).stream().filter(e -> e.containsKey("marker"))
                .map(e -> e.getString("marker")).toList();
    }
}
