package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.deadletter.control.Retention;
import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.demo.control.DocumentIngestion;
import dev.lazarus.it.Api.Response;
import dev.lazarus.pipeline.control.Runs;
import dev.lazarus.pipeline.entity.RunState;
import dev.lazarus.sweep.control.Sweeps;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.File;
import java.net.URI;
import java.net.URL;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
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
 * Inside the server: the run and its open dead letter agree whatever an operator, retention or a full queue
 * does. States the API cannot produce (a dead letter left over from an older version that does not hold its
 * run, a run that disagrees with its dead letter, thousands of settled messages in a DLQ) are made with the
 * fixtures; the operator's actions go through the REST API as they would for real.
 */
@ExtendWith(ArquillianExtension.class)
class AgreementIT {

    private static final String PARSE = DocumentIngestion.PARSE_QUEUE;
    private static final String FETCH = DocumentIngestion.FETCH_QUEUE;

    @Deployment
    static WebArchive deployment() {
        return ShrinkWrap.createFromZipFile(WebArchive.class, new File(System.getProperty("it.war", "target/lazarus.war")))
                .addClasses(AgreementIT.class, TestFixtures.class, Await.class, Api.class, Api.Response.class);
    }

    private TestFixtures fixtures;
    private Sweeps sweeps;
    private Runs runs;
    private Retention retention;
    private Api operator;

    @org.junit.jupiter.api.AfterEach
    void endTheRunsMade() {
        fixtures.endRunsMade(); // not left for the sweeper to dead-letter in a later class, under its counts
    }

    @BeforeEach
    void beans() throws Exception {
        fixtures = CDI.current().select(TestFixtures.class).get();
        sweeps = CDI.current().select(Sweeps.class).get();
        runs = CDI.current().select(Runs.class).get();
        retention = CDI.current().select(Retention.class).get();
        int port = 8080 + Integer.getInteger("jboss.socket.binding.port-offset", 0);
        URL base = URI.create("http://127.0.0.1:" + port + "/lazarus/").toURL();
        operator = new Api(base, "operator", "operator-pw");
    }

    /** A run dead-lettered for real at index (a permanent failure), with its message parked in DLQ.index. */
    private UUID deadLetteredRun() {
        UUID run = runs.start(DocumentIngestion.NAME, Json.createObjectBuilder()
                .add("failures", Json.createObjectBuilder().add("index", Json.createObjectBuilder().add("mode", "permanent"))).build()).id();
        Await.until("run " + run + " dead-lettered, its message parked", Duration.ofSeconds(60),
                () -> fixtures.stateOf(run) == RunState.DEAD_LETTERED && fixtures.inIndexDlq(run) == 1, Boolean::booleanValue);
        return run;
    }

    @Test
    void aDeadLetterThatDoesNotHoldItsRunCannotBeRequeuedAndNothingChanges() {
        UUID run = deadLetteredRun();
        long holding = fixtures.deadLettersOf(run).get(0).id();
        // left by an older version: open, about the run, but not the one the run is stopped by
        long loose = fixtures.openDeadLetterOf(UUID.randomUUID(), "index");
        fixtures.update("update dead_letter set run_id = ?, open_run_id = null where id = ?", run, loose);

        Response refused = operator.post("api/dead-letters/" + loose + "/requeue", "");

        assertEquals(409, refused.status(), refused.body());
        assertEquals(RunState.DEAD_LETTERED, fixtures.stateOf(run));
        assertTrue(fixtures.deadLetter(holding).isOpen(), "the dead letter holding the run is untouched");
        assertEquals(1, fixtures.inIndexDlq(run), "and so is its message");
        assertEquals(200, operator.post("api/dead-letters/" + holding + "/requeue", "").status(), "the right one requeues");
    }

    @Test
    void aDeadLetterWhoseRunIsNotStoppedIsAConflictNotAServerError() {
        UUID run = fixtures.runIn(RunState.IN_PROGRESS, "parse", Instant.now());
        long deadLetter = fixtures.openDeadLetterOf(run, "parse");

        Response refused = operator.post("api/dead-letters/" + deadLetter + "/requeue", "");

        try {
            assertEquals(409, refused.status(), refused.body());
            assertTrue(refused.json().getString("detail").contains("IN_PROGRESS"), refused.body());
            assertEquals(RunState.IN_PROGRESS, fixtures.stateOf(run));
        } finally {
            agreeAgain(run);
        }
    }

    /**
     * Gives a run made to disagree with its open dead letter the state the dead letter says: left in progress, it would
     * be stale at parse for as long as the test server runs (the sweeper leaves a run an open dead letter holds to it),
     * and the tests that count runs at risk there would count it.
     */
    private void agreeAgain(UUID run) {
        fixtures.update("update run set state = 'DEAD_LETTERED' where id = ?", run);
    }

    @Test
    void aBulkJobSkipsAndReportsADeadLetterItCannotRequeueAndFinishesTheRest() {
        Instant from = Instant.now();
        UUID good = deadLetteredRun();
        UUID busy = fixtures.runIn(RunState.IN_PROGRESS, "parse", Instant.now());
        long disagreeing = fixtures.openDeadLetterOf(busy, "parse");
        try {
            Response started = operator.post("api/requeue-jobs", "{\"filter\":{\"from\":\"" + from + "\",\"reason\":\"NON_RETRYABLE\"},"
                    + "\"ratePerSecond\":0}");
            assertEquals(202, started.status(), started.body());
            String job = started.location().substring(started.location().indexOf("api/"));
            JsonObject done = Await.until("the job to finish", Duration.ofSeconds(60), () -> operator.get(job).ok().json(),
                    j -> !"RUNNING".equals(j.getString("state")));

            assertEquals("COMPLETED", done.getString("state"), done.toString());
            assertEquals(1, done.getInt("requeued"), done.toString());
            assertEquals(1, done.getInt("skipped"), done.toString());
            assertTrue(done.getString("skippedDetail").startsWith(disagreeing + ": "), done.toString());
            assertEquals("REQUEUED", fixtures.deadLettersOf(good).get(0).status().name(), "the good one was requeued");
            assertEquals(RunState.IN_PROGRESS, fixtures.stateOf(busy), "the disagreeing run is left as it is");
        } finally {
            agreeAgain(busy); // also when an assertion failed: a run in progress forever would be stale in later classes
        }
    }

    @Test
    void retentionRemovesAPurgedDeadLettersMessageSoItNeverComesBack() {
        // a message of no run, dropped into a step queue: dead-lettered on its own and parked in the DLQ
        String marker = "purged with its dead letter " + UUID.randomUUID();
        fixtures.send(FETCH, 1, marker, Map.of("lazarusTest", marker));
        long deadLetter = Long.parseLong(Await.until("its dead letter", Duration.ofSeconds(60),
                () -> fixtures.column("select id from dead_letter where message_body = '" + marker + "'"), ids -> !ids.isEmpty()).get(0));
        Await.until("its message parked", Duration.ofSeconds(30),
                () -> fixtures.messageIds("DLQ." + FETCH, "lazarusTest = '" + marker + "'").size(), n -> n == 1);
        assertEquals(200, operator.post("api/dead-letters/" + deadLetter + "/discard", "{\"note\":\"not worth it\"}").status());
        fixtures.update("update dead_letter set closed_at = ? where id = ?", Instant.now().minus(Duration.ofDays(40)), deadLetter);

        retention.purge();
        sweeps.sweep();
        sweeps.sweep();

        assertEquals(List.of(), fixtures.column("select id from dead_letter where message_body = '" + marker + "'"),
                "purged, and not recorded again by the reconciler");
        assertEquals(0, fixtures.messageIds("DLQ." + FETCH, "lazarusTest = '" + marker + "'").size(), "its message went with it");
    }

    @Test
    void messagesAlreadySettledInADlqDoNotHideAnUnexplainedOneBehindThem() {
        long settledBy = fixtures.deadLetterAt(Instant.now(), Instant.now());
        fixtures.send("DLQ." + FETCH, 2_100, "settled earlier", Map.of("lazarusDeadLetterId", settledBy,
                "lazarusParkedToken", UUID.randomUUID().toString(), "lazarusTest", "filler"));
        try {
            // behind them, what the broker moved there by itself for a live run, still for minutes (one that moved lately
            // is judged later: its own message could be waiting out a redelivery delay): nobody has explained it yet
            UUID run = fixtures.runIn(RunState.RETRYING, "fetch", Instant.now().minus(Duration.ofMinutes(5)));
            fixtures.send("DLQ." + FETCH, 1, "{\"runId\":\"" + run + "\",\"step\":\"fetch\",\"generation\":1}",
                    Map.of("lazarusRunId", run.toString(), "lazarusStep", "fetch", "lazarusGeneration", 1L, "_AMQ_ORIG_QUEUE", FETCH));

            sweeps.sweep();
            sweeps.sweep();

            List<DeadLetter> recorded = fixtures.deadLettersOf(run);
            assertEquals(1, recorded.size(), "the unexplained message got its dead letter");
            assertEquals("UNDELIVERABLE", recorded.get(0).reason().name(), "the step never failed: the broker gave up on it");
            assertEquals(RunState.DEAD_LETTERED, fixtures.stateOf(run));
        } finally {
            fixtures.purge("DLQ." + FETCH, "lazarusTest = 'filler'");
        }
    }

    @Test
    void runsNotStaleYetByTheirOwnStepDoNotHoldBackAStaleOneBehindThem() {
        // index may be silent for 2 minutes (declared in code), parse for 6 s (the test server's global default)
        Instant thirtySecondsAgo = Instant.now().minus(Duration.ofSeconds(30));
        List<UUID> indexing = new ArrayList<>();
        for (int i = 0; i < 260; i++) {
            indexing.add(fixtures.runIn(RunState.IN_PROGRESS, "index", thirtySecondsAgo.minusMillis(i)));
        }
        UUID stuck = fixtures.runIn(RunState.IN_PROGRESS, "parse", Instant.now().minus(Duration.ofSeconds(20)));
        try {
            sweeps.sweep();
            assertEquals(RunState.DEAD_LETTERED, fixtures.stateOf(stuck), "swept although 260 older runs came first");
            assertEquals("STUCK_IN_PROGRESS", fixtures.deadLettersOf(stuck).get(0).reason().name());
            assertTrue(indexing.stream().allMatch(run -> fixtures.stateOf(run) == RunState.IN_PROGRESS), "they are not stale yet");
        } finally {
            for (UUID run : indexing) {
                fixtures.update("update run set state = 'COMPLETED' where id = ?", run);
            }
        }
    }

    @Test
    void aForgedMessageInADlqIsRecordedAsMalformedAndHoldsUpNothing() {
        // properties of the wrong types, as a hand-made message could carry them
        fixtures.send("DLQ." + FETCH, 1, "forged", Map.of("lazarusDeadLetterId", "x", "lazarusRunId", "not-a-uuid",
                "lazarusGeneration", true, "lazarusTest", "forged"));
        // behind it, the message of a run still for minutes, which the broker gave up on
        UUID run = fixtures.runIn(RunState.RETRYING, "fetch", Instant.now().minus(Duration.ofMinutes(5)));
        fixtures.send("DLQ." + FETCH, 1, "{\"runId\":\"" + run + "\",\"step\":\"fetch\",\"generation\":1}",
                Map.of("lazarusRunId", run.toString(), "lazarusStep", "fetch", "lazarusGeneration", 1L, "_AMQ_ORIG_QUEUE", FETCH));

        sweeps.sweep();

        assertEquals(RunState.DEAD_LETTERED, fixtures.stateOf(run), "the queue was reconciled past the forged message");
        assertEquals(0, fixtures.purge("DLQ." + FETCH, "lazarusTest = 'forged' AND lazarusParkedToken IS NULL"),
                "the forged message was settled (parked again with a dead letter of its own)");
        sweeps.sweep();
        assertEquals(1, fixtures.deadLettersOf(run).size(), "settling again records nothing new");
    }
}
