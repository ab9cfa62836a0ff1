package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.lazarus.deadletter.control.DeadLetterReconciler;
import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.demo.control.DocumentIngestion;
import dev.lazarus.pipeline.control.Runs;
import dev.lazarus.pipeline.entity.RunState;
import dev.lazarus.platform.control.BrokerManagement;
import dev.lazarus.platform.control.Brokers;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.json.Json;
import java.io.File;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Messages made to mislead: a copy of a live run's dispatch put into its DLQ while the dispatch's own message waits out
 * its redelivery delay (the broker holds it as a scheduled message: neither "waiting in the queue" for a filtered count
 * nor "being delivered"), and a step message nested deeper than the JSON parser reads.
 */
@ExtendWith(ArquillianExtension.class)
class MisleadingMessagesIT {

    @Deployment
    static WebArchive deployment() {
        return ShrinkWrap.createFromZipFile(WebArchive.class, new File(System.getProperty("it.war", "target/lazarus.war")))
                .addClasses(MisleadingMessagesIT.class, TestFixtures.class, Await.class);
    }

    private TestFixtures fixtures;
    private Runs runs;
    private BrokerManagement management;
    private Brokers brokers;

    @BeforeEach
    void beans() {
        fixtures = CDI.current().select(TestFixtures.class).get();
        runs = CDI.current().select(Runs.class).get();
        management = CDI.current().select(BrokerManagement.class).get();
        brokers = CDI.current().select(Brokers.class).get();
    }

    /**
     * Operator's guide, The reconciler: "It stops a run only for the dispatch the run waits for, and only if the message is that
     * dispatch rather than a copy of it: ... no other message of the dispatch waits in that queue or is being delivered
     * from it". A message in its redelivery delay waits in its queue, but the broker's filtered counts do not see it.
     */
    @Test
    void aCopyOfTheDispatchInItsDlqDoesNotStopARunWhoseMessageWaitsOutItsRedeliveryDelay() {
        // fetch: 4 attempts, 0.5 s, 1 s, 2 s between them; this run's fetch succeeds on its 4th attempt
        UUID run = runs.start(DocumentIngestion.NAME, Json.createObjectBuilder()
                .add("failures", Json.createObjectBuilder().add("fetch", Json.createObjectBuilder()
                        .add("mode", "transient").add("succeedOnAttempt", 4)))
                .build()).id();
        // its dispatch's message is waiting out a redelivery delay: scheduled on the broker
        Await.until("the fetch of run " + run + " waiting out a redelivery delay", Duration.ofSeconds(30),
                () -> management.invoke(brokers.all().get(0), "queue." + DocumentIngestion.FETCH_QUEUE, "listScheduledMessagesAsJSON"),
                scheduled -> scheduled.contains(run.toString()));
        long generation = fixtures.generationOf(run);
        Map<String, Object> copied = new HashMap<>(Map.of("lazarusRunId", run.toString(), "lazarusStep", "fetch",
                "lazarusGeneration", generation));
        // copied in the console from the step queue: the broker stamps where it came from
        copied.put("_AMQ_ORIG_QUEUE", DocumentIngestion.FETCH_QUEUE);
        copied.put("_AMQ_ORIG_ADDRESS", DocumentIngestion.FETCH_QUEUE);
        fixtures.send("DLQ." + DocumentIngestion.FETCH_QUEUE, 1,
                "{\"runId\":\"" + run + "\",\"step\":\"fetch\",\"generation\":" + generation + "}", copied);

        CDI.current().select(DeadLetterReconciler.class).get().reconcile(); // while the dispatch's message waits

        assertNotEquals(RunState.DEAD_LETTERED, fixtures.stateOf(run), "a copy stopped a healthy run: "
                + fixtures.deadLettersOf(run).stream().map(d -> d.reason() + " " + d.errorMessage()).toList());
        Await.until("run " + run + " to complete", Duration.ofSeconds(60), () -> fixtures.stateOf(run),
                state -> state == RunState.COMPLETED || state == RunState.DEAD_LETTERED);
        assertEquals(RunState.COMPLETED, fixtures.stateOf(run), "dead letters: "
                + fixtures.deadLettersOf(run).stream().map(DeadLetter::errorMessage).toList());
    }

    /**
     * Reference, Hostile input: text that is not JSON (or not a step message) dropped into a step queue is a MALFORMED_MESSAGE
     * dead letter, parked at once. JSON nested deeper than the parser reads (1 001 levels) makes Parsson throw a plain
     * RuntimeException, which StepMessage.parse does not catch: the consumer rolls back, and the broker redelivers it.
     */
    @Test
    void aStepMessageNestedDeeperThanTheParserReadsIsMalformedAtOnce() {
        String marker = UUID.randomUUID().toString();
        String deep = "[".repeat(1001) + "]".repeat(1001);
        java.time.Instant sent = java.time.Instant.now().minusSeconds(1);
        fixtures.send(DocumentIngestion.FETCH_QUEUE, 1, deep, Map.of("testMarker", marker));
        String detectedBy = Await.until("a dead letter of the deeply nested message", Duration.ofSeconds(120),
                () -> fixtures.column("select detected_by || ' ' || reason || ' ' || attempts from dead_letter"
                        // this test's: another class leaves deep messages too, and ids are not in the order of creation
                        + " where message_body like '[[[[[%' and created_at >= '" + sent + "' order by created_at desc limit 1"),
                found -> !found.isEmpty()).get(0);
        assertEquals("consumer MALFORMED_MESSAGE", detectedBy.substring(0, detectedBy.lastIndexOf(' ')),
                "not refused by the consumer at its first delivery: " + detectedBy);
    }
}
