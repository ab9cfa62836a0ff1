package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.deadletter.control.BulkJobStore;
import dev.lazarus.deadletter.control.DeadLetterReconciler;
import dev.lazarus.deadletter.control.DeadLetterReport;
import dev.lazarus.deadletter.control.DeadLetterService;
import dev.lazarus.deadletter.control.DeadLetters;
import dev.lazarus.deadletter.control.ParkedMessageCheck;
import dev.lazarus.deadletter.control.Retention;
import dev.lazarus.deadletter.entity.BulkJob;
import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.deadletter.entity.DeadLetterAction;
import dev.lazarus.deadletter.entity.DeadLetterFilter;
import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.demo.control.DocumentIngestion;
import dev.lazarus.outage.control.Probes;
import dev.lazarus.pipeline.control.Pipelines;
import dev.lazarus.pipeline.control.Runs;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.pipeline.entity.RunState;
import dev.lazarus.platform.control.BrokerManagement;
import dev.lazarus.platform.control.Brokers;
import dev.lazarus.platform.control.TimerRuns;
import dev.lazarus.sweep.boundary.StaleRunSweeper;
import dev.lazarus.sweep.control.LiveRuns;
import dev.lazarus.sweep.control.StaleRuns;
import dev.lazarus.sweep.control.StalenessRules.Health;
import dev.lazarus.sweep.control.StalenessRules;
import dev.lazarus.sweep.control.Sweeps;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.json.Json;
import java.io.File;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs inside the server, next to the real database and broker, to reach states the API cannot produce
 * quickly: two nodes sweeping at once, a database that refuses the diagnostics at the last attempt, a DLQ
 * message purged by hand, dead letters closed long ago.
 */
@ExtendWith(ArquillianExtension.class)
class ResilienceIT {

    private static final Instant AN_HOUR_AGO = Instant.now().minus(Duration.ofHours(1));

    @Deployment
    static WebArchive deployment() {
        return ShrinkWrap.createFromZipFile(WebArchive.class, new File(System.getProperty("it.war", "target/lazarus.war")))
                .addClasses(ResilienceIT.class, TestFixtures.class, Await.class);
    }

    private TestFixtures fixtures;
    private Sweeps sweeps;
    private Runs runs;
    private Retention retention;
    private LiveRuns liveRuns;
    private ParkedMessageCheck parkedMessages;
    private DeadLetterService deadLetterService;
    private Pipelines pipelines;
    private dev.lazarus.pipeline.control.StepDispatcher dispatcher;

    /** Looked up rather than injected: the same beans the application uses, through CDI itself. */
    @org.junit.jupiter.api.AfterEach
    void endTheRunsMade() {
        fixtures.endRunsMade(); // not left for the sweeper to dead-letter in a later class, under its counts
    }

    @BeforeEach
    void beans() {
        fixtures = CDI.current().select(TestFixtures.class).get();
        sweeps = CDI.current().select(Sweeps.class).get();
        runs = CDI.current().select(Runs.class).get();
        retention = CDI.current().select(Retention.class).get();
        liveRuns = CDI.current().select(LiveRuns.class).get();
        parkedMessages = CDI.current().select(ParkedMessageCheck.class).get();
        deadLetterService = CDI.current().select(DeadLetterService.class).get();
        pipelines = CDI.current().select(Pipelines.class).get();
        dispatcher = CDI.current().select(dev.lazarus.pipeline.control.StepDispatcher.class).get();
        // a step that ran again lately starts the staleness clock of the runs waiting at it from then (operator's
        // guide, Outage control): the runs these tests make "an hour ago" must not meet a step another test class paused and resumed
        fixtures.update("update step_control set resumed_at = null where state = 'RUNNING'");
    }

    @Test
    void twoNodesSweepingAtOnceRecordExactlyOneDeadLetterPerStaleRun() throws Exception {
        List<UUID> stuck = new ArrayList<>();
        List<UUID> waiting = new ArrayList<>();
        List<UUID> unrecovered = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            stuck.add(fixtures.runIn(RunState.IN_PROGRESS, "parse", AN_HOUR_AGO));
            waiting.add(fixtures.runIn(RunState.PENDING, "fetch", AN_HOUR_AGO));
            unrecovered.add(fixtures.runIn(RunState.RETRYING, "index", AN_HOUR_AGO));
        }
        UUID healthy = fixtures.runIn(RunState.PENDING, "fetch", Instant.now());

        ExecutorService nodes = Executors.newFixedThreadPool(2);
        try {
            List<Callable<Sweeps.SweepReport>> twoSweeps = List.of(sweeps::sweep, sweeps::sweep);
            for (Future<Sweeps.SweepReport> sweep : nodes.invokeAll(twoSweeps)) {
                assertNotNull(sweep.get(), "a sweep failed");
            }
        } finally {
            nodes.shutdown();
        }

        Map<String, List<UUID>> expected = Map.of("STUCK_IN_PROGRESS", stuck, "WAITING_TOO_LONG", waiting, "UNRECOVERED_ERROR", unrecovered);
        expected.forEach((reason, stale) -> stale.forEach(run -> {
            List<DeadLetter> deadLetters = fixtures.deadLettersOf(run);
            assertEquals(1, deadLetters.size(), "run " + run + " has " + deadLetters.size() + " dead letters");
            assertEquals(reason, deadLetters.get(0).reason().name());
            assertEquals("sweeper", deadLetters.get(0).detectedBy());
            assertEquals(RunState.DEAD_LETTERED, fixtures.stateOf(run));
        }));
        assertEquals(RunState.PENDING, fixtures.stateOf(healthy), "a run within its threshold is left alone");
        assertTrue(fixtures.deadLettersOf(healthy).isEmpty());
    }

    /**
     * The reconciler's check of parked messages and a requeue wrote the same dead letters in different orders,
     * and PostgreSQL broke the deadlock by failing one of them: sometimes the operator's requeue (a 500). The
     * check now skips a dead letter someone holds, so it never waits for one.
     */
    @Test
    void theCheckOfParkedMessagesSkipsADeadLetterARequeueHoldsInsteadOfWaitingForIt() throws Exception {
        String queue = DocumentIngestion.PARSE_QUEUE;
        // created "in an hour": the reconciler's timer (which checks what is older than a second) never touches them,
        // only this test's calls, which look at everything created before two hours from now
        Instant inAnHour = Instant.now().plus(Duration.ofHours(1));
        Instant before = inAnHour.plus(Duration.ofHours(1));
        long held = fixtures.parkedDeadLetterAt(queue, inAnHour);
        long other = fixtures.parkedDeadLetterAt(queue, inAnHour);
        CountDownLatch locked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService requeue = Executors.newSingleThreadExecutor();
        try {
            Future<?> holder = requeue.submit(() -> {
                fixtures.holdLockOn(held, locked, release);
                return null;
            });
            assertTrue(locked.await(30, TimeUnit.SECONDS), "the lock was not taken");

            ExecutorService reconciler = Executors.newSingleThreadExecutor();
            try {
                // with the old check this waits for the row until the database's lock timeout, then fails
                Future<Integer> check = reconciler.submit(() -> parkedMessages.check("DLQ." + queue, before, Instant.now(), 10_000));
                assertTrue(check.get(5, TimeUnit.SECONDS) >= 1, "the other dead letter's missing message was flagged");
            } finally {
                reconciler.shutdownNow();
            }
            assertTrue(fixtures.deadLetter(other).dlqMessageMissing(), "the dead letter nobody held was checked");
            assertFalse(fixtures.deadLetter(held).dlqMessageMissing(), "the held one is left for the next pass");

            release.countDown();
            holder.get(30, TimeUnit.SECONDS);
            parkedMessages.check("DLQ." + queue, before, Instant.now(), 10_000);
            assertTrue(fixtures.deadLetter(held).dlqMessageMissing(), "the next pass checks it");
        } finally {
            release.countDown();
            requeue.shutdownNow();
        }
    }

    @Test
    void aConsumerGivingUpWhileASweepHoldsTheRunWaitsForTheSweepInsteadOfDeadlocking() throws Exception {
        // fresh: the timer's sweeps leave it alone; only this test's two detectors race for it
        UUID run = fixtures.runIn(RunState.IN_PROGRESS, "parse", Instant.now());
        long generation = fixtures.generationOf(run);
        StepDefinition parse = pipelines.step(DocumentIngestion.NAME, "parse").orElseThrow();
        DeadLetterReport swept = DeadLetterReport.runStalled(DeadLetterReason.STUCK_IN_PROGRESS, parse, run, generation, 1,
                "the test's sweep");
        DeadLetterReport givenUp = DeadLetterReport.stepGivenUp(parse, run, generation, "ID:test-" + run, 3, "the test's consumer");
        CountDownLatch locked = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        ExecutorService detectors = Executors.newFixedThreadPool(2);
        try {
            Future<Long> sweep = detectors.submit(() -> fixtures.recordWithTheRunLockedFirst(run, swept, locked, proceed));
            assertTrue(locked.await(30, TimeUnit.SECONDS), "the sweep did not lock the run");
            Future<Long> consumer = detectors.submit(() -> deadLetterService.recordAlone(givenUp).id());
            // the consumer now waits for the run's lock (before the fix: it had written its dead letter, then waited)
            Await.until("the consumer waiting for the sweep's lock", Duration.ofSeconds(30),
                    fixtures::sessionsWaitingForALock, n -> n >= 1);
            proceed.countDown();
            // before the fix PostgreSQL found a deadlock here and failed one of the two
            long sweptWith = sweep.get(30, TimeUnit.SECONDS);
            assertEquals(sweptWith, consumer.get(30, TimeUnit.SECONDS), "the consumer found the sweep's dead letter");
        } finally {
            proceed.countDown();
            detectors.shutdownNow();
        }
        List<DeadLetter> deadLetters = fixtures.deadLettersOf(run);
        assertEquals(1, deadLetters.size(), "one dead letter for the run");
        assertEquals(DeadLetterReason.STUCK_IN_PROGRESS, deadLetters.get(0).reason(), "the first evidence stays");
        assertEquals(RunState.DEAD_LETTERED, fixtures.stateOf(run));
    }

    @Test
    void anOperatorsStopWhileASweepHoldsTheRunWaitsForTheSweepAndIsThenRefusedForTheRunHasEnded() throws Exception {
        // fresh: the timer's sweeps leave it alone; only this test's sweep and stop race for it
        UUID run = fixtures.runIn(RunState.IN_PROGRESS, "parse", Instant.now());
        StepDefinition parse = pipelines.step(DocumentIngestion.NAME, "parse").orElseThrow();
        DeadLetterReport swept = DeadLetterReport.runStalled(DeadLetterReason.STUCK_IN_PROGRESS, parse, run, fixtures.generationOf(run),
                1, "the test's sweep");
        CountDownLatch locked = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        ExecutorService both = Executors.newFixedThreadPool(2);
        try {
            Future<Long> sweep = both.submit(() -> fixtures.recordWithTheRunLockedFirst(run, swept, locked, proceed));
            assertTrue(locked.await(30, TimeUnit.SECONDS), "the sweep did not lock the run");
            Future<Long> stop = both.submit(() -> deadLetterService.stop(run, "operator", "stopped while it was swept").id());
            Await.until("the stop waiting for the sweep's lock", Duration.ofSeconds(30), fixtures::sessionsWaitingForALock, n -> n >= 1);
            proceed.countDown();
            long sweptWith = sweep.get(30, TimeUnit.SECONDS);
            java.util.concurrent.ExecutionException refused = org.junit.jupiter.api.Assertions.assertThrows(
                    java.util.concurrent.ExecutionException.class, () -> stop.get(30, TimeUnit.SECONDS));
            dev.lazarus.platform.control.Problem conflict = (dev.lazarus.platform.control.Problem) refused.getCause();
            assertEquals(409, conflict.status());
            assertTrue(conflict.detail().contains("DEAD_LETTERED"), conflict.detail());
            List<DeadLetter> deadLetters = fixtures.deadLettersOf(run);
            assertEquals(1, deadLetters.size(), "one dead letter for the run");
            assertEquals(sweptWith, deadLetters.get(0).id(), "the sweep's, which locked the run first");
        } finally {
            proceed.countDown();
            both.shutdownNow();
        }
    }

    @Test
    void aStepThatSucceedsAfterAnOperatorStoppedItsRunCannotRecordItsResult() throws Exception {
        UUID run = fixtures.runIn(RunState.IN_PROGRESS, "parse", Instant.now());
        long generation = fixtures.generationOf(run);
        CountDownLatch read = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        ExecutorService consumer = Executors.newSingleThreadExecutor();
        try {
            Future<?> step = consumer.submit(() -> {
                fixtures.succeedAfterAWait(run, "parse", read, proceed);
                return null;
            });
            assertTrue(read.await(30, TimeUnit.SECONDS), "the consumer did not read the run");
            DeadLetter stopped = deadLetterService.stop(run, "operator", "stopped while its step ran");
            proceed.countDown();
            java.util.concurrent.ExecutionException refused = org.junit.jupiter.api.Assertions.assertThrows(
                    java.util.concurrent.ExecutionException.class, () -> step.get(30, TimeUnit.SECONDS));
            assertTrue(refused.getCause() instanceof dev.lazarus.pipeline.control.StepLedger.RunMovedOn,
                    "the run's version check refused the step's outcome: " + refused.getCause());
            assertEquals(RunState.DEAD_LETTERED, fixtures.stateOf(run));
            assertEquals("parse", fixtures.currentStepOf(run), "the run did not move on");
            assertEquals(generation + 1, fixtures.generationOf(run));
            assertEquals(List.of(stopped.id()), fixtures.deadLettersOf(run).stream().map(DeadLetter::id).toList());
        } finally {
            proceed.countDown();
            consumer.shutdownNow();
        }
    }

    @Test
    void anOperatorsStopWhileAStepCommitsWaitsForItAndStopsTheRunAtTheNextStep() throws Exception {
        UUID run = fixtures.runIn(RunState.IN_PROGRESS, "parse", Instant.now());
        long generation = fixtures.generationOf(run);
        CountDownLatch written = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        ExecutorService both = Executors.newFixedThreadPool(2);
        try {
            Future<java.util.Optional<dev.lazarus.pipeline.control.StepDispatcher.Dispatch>> step = both.submit(() ->
                    fixtures.succeedAndWaitBeforeCommitting(run, "parse", written, proceed));
            assertTrue(written.await(30, TimeUnit.SECONDS), "the consumer did not record its success");
            Future<DeadLetter> stop = both.submit(() -> deadLetterService.stop(run, "operator", "stopped while its step committed"));
            Await.until("the stop waiting for the step's commit", Duration.ofSeconds(30), fixtures::sessionsWaitingForALock, n -> n >= 1);
            proceed.countDown();
            // sent once the step's transaction committed, as the consumer sends it
            step.get(30, TimeUnit.SECONDS).ifPresent(dispatcher::send);
            DeadLetter stopped = stop.get(30, TimeUnit.SECONDS);
            assertEquals("index", stopped.stepName(), "the step's commit came first: the stop holds the run at the step after it");
            assertEquals(generation + 1, stopped.generation(), "the dispatch of index the step's commit made");
            assertEquals(RunState.DEAD_LETTERED, fixtures.stateOf(run));
            assertEquals("index", fixtures.currentStepOf(run));
            // the index message that commit sent is a message of the stopped dispatch: parked with the stop's dead letter
            Await.until("index's message parked with the stop's dead letter", Duration.ofSeconds(30), () -> fixtures.inIndexDlq(run),
                    n -> n == 1);
            assertEquals(List.of(stopped.id()), fixtures.deadLettersOf(run).stream().map(DeadLetter::id).toList(),
                    "no dead letter but the stop's");
        } finally {
            proceed.countDown();
            both.shutdownNow();
        }
    }

    @Test
    void aSweepAfterAnOperatorsStopFindsTheRunStoppedAndRecordsNothing() {
        UUID run = fixtures.runIn(RunState.IN_PROGRESS, "parse", Instant.now());
        long generation = fixtures.generationOf(run);
        DeadLetter stopped = deadLetterService.stop(run, "operator", "stopped before the sweep");
        assertEquals(DeadLetterReason.MANUAL, stopped.reason());
        assertEquals(generation, stopped.generation(), "the dispatch it stopped");
        assertEquals(generation + 1, fixtures.generationOf(run), "fenced: the run moved past that dispatch");
        // judged an hour from now the run would be stuck, were it still in progress
        StaleRuns staleRuns = CDI.current().select(StaleRuns.class).get();
        assertEquals(0, staleRuns.deadLetterIfStale(List.of(run), StalenessRules.Kind.STUCK, Instant.now().plus(Duration.ofHours(1))));
        List<DeadLetter> deadLetters = fixtures.deadLettersOf(run);
        assertEquals(1, deadLetters.size());
        assertEquals(DeadLetterReason.MANUAL, deadLetters.get(0).reason(), "the stop's dead letter, and no other");
        assertEquals(RunState.DEAD_LETTERED, fixtures.stateOf(run));
    }

    @Test
    void thePersistentTimersLiveInTheSharedDatabaseSoThatEachFiringRunsOnOneNodeOnly() {
        List<String> timers = fixtures.persistentTimers();
        for (String timer : List.of("StaleRunSweeper / sweep", "RetentionTimer / purge", "RequeueJobRecovery / interruptSilentJobs")) {
            assertEquals(1, timers.stream().filter(t -> t.endsWith(timer)).count(), timer + " once among " + timers);
        }
    }

    @Test
    void aTimerThatStoppedFiringIsTakenOverByOneWatchdogAtATime() {
        TimerRuns timerRuns = CDI.current().select(TimerRuns.class).get();
        StaleRunSweeper sweeper = CDI.current().select(StaleRunSweeper.class).get();
        // the sweeper's timer fires (every 2 s in the tests): every sweep records that it finished, and no watchdog steps in
        Instant swept = timerRuns.finishedAt(Sweeps.NAME).orElseThrow();
        assertTrue(swept.isAfter(Instant.now().minus(Duration.ofMinutes(1))), "a sweep finished recently: " + swept);
        assertFalse(sweeper.sweepIfOverdue(), "the sweeper runs: the watchdog has nothing to do");

        // a timer of its own, so that no real firing interferes
        String timer = "test-" + UUID.randomUUID().toString().substring(0, 8); // timer names have at most 40 characters
        Duration overdue = Duration.ofMinutes(2);
        assertFalse(timerRuns.claimOverdue(timer, overdue), "never run: watched from now on, not overdue yet");
        // as if its node had died in the middle of a firing ten minutes ago
        fixtures.update("update timer_run set finished_at = now() - interval '10 minutes' where name = ?", timer);
        List<Boolean> claims = new ArrayList<>();
        for (int node = 0; node < 3; node++) {
            claims.add(timerRuns.claimOverdue(timer, overdue));
        }
        assertEquals(List.of(true, false, false), claims, "one watchdog takes it over; the others leave it to that one");
        timerRuns.finished(timer, Duration.ofMillis(5));
        assertFalse(timerRuns.claimOverdue(timer, overdue), "finished again: not overdue");
        assertEquals(List.of(TimerRuns.NODE), fixtures.column("select node from timer_run where name = '" + timer + "'"));
    }

    @Test
    void aRequeueJobLeftRunningByANodeThatNeverCameBackIsInterruptedByAnyNode() {
        aJobLeftRunningByANodeThatNeverCameBackIsInterruptedByAnyNode(BulkJob.Action.REQUEUE);
    }

    @Test
    void aBulkDiscardLeftRunningByANodeThatNeverCameBackIsInterruptedByAnyNodeAndItsDeadLettersStayOpen() {
        aJobLeftRunningByANodeThatNeverCameBackIsInterruptedByAnyNode(BulkJob.Action.DISCARD);
    }

    private void aJobLeftRunningByANodeThatNeverCameBackIsInterruptedByAnyNode(BulkJob.Action action) {
        BulkJobStore store = CDI.current().select(BulkJobStore.class).get();
        Instant now = Instant.now();
        // an open dead letter holding its run, which the jobs' filter matches: a batch would act on it
        UUID run = fixtures.runIn(RunState.IN_PROGRESS, "parse", now);
        StepDefinition parse = pipelines.step(DocumentIngestion.NAME, "parse").orElseThrow();
        long held = deadLetterService.record(DeadLetterReport.runStalled(DeadLetterReason.STUCK_IN_PROGRESS, parse, run,
                fixtures.generationOf(run), 1, "held for the test")).id();
        DeadLetterFilter itsRun = new DeadLetterFilter(null, null, run, true, null, null, null, null, null, null);
        long orphan = fixtures.runningBulkJob(action, itsRun, "node-that-died", now.minus(Duration.ofMinutes(10)));
        long alive = fixtures.runningBulkJob(action, itsRun, "node-still-working", now);
        assertEquals(1, fixtures.bulkJob(orphan).total(), "it counted the dead letter");
        try {
            // the timer's check, as any node runs it: silent for longer than two minutes means no worker
            store.interruptSilent(Duration.ofMinutes(2));
            BulkJob interrupted = fixtures.bulkJob(orphan);
            assertEquals(BulkJob.State.INTERRUPTED, interrupted.state());
            assertTrue(interrupted.lastError().contains("node-that-died"), interrupted.lastError());
            assertEquals(BulkJob.State.RUNNING, fixtures.bulkJob(alive).state(), "a job making progress is left alone");

            // if its worker was alive after all, its next batch does nothing and the job stays as it was marked
            assertEquals(0, fixtures.bulkBatch(orphan), "a batch of a job no longer running does nothing");
            BulkJob after = fixtures.bulkJob(orphan);
            assertEquals(BulkJob.State.INTERRUPTED, after.state());
            assertEquals(0, after.done() + after.skipped(), "nothing done or skipped");
            assertTrue(fixtures.deadLetter(held).isOpen(), "the dead letter is still open");
            assertEquals(RunState.DEAD_LETTERED, fixtures.stateOf(run));
        } finally {
            store.finish(alive, BulkJob.State.CANCELLED, "test over");
        }
    }

    @Test
    void twoNodesReconcilingTheSameDlqMessagesRecordOneDeadLetterEach() throws Exception {
        // messages the broker would have moved there itself: no mark, nothing explains them yet
        String marker = "reconciled twice " + UUID.randomUUID();
        for (int i = 0; i < 10; i++) {
            fixtures.send("DLQ." + DocumentIngestion.FETCH_QUEUE, 1, marker + " #" + i, Map.of());
        }
        DeadLetterReconciler reconciler = CDI.current().select(DeadLetterReconciler.class).get();
        ExecutorService nodes = Executors.newFixedThreadPool(2);
        try {
            List<Callable<DeadLetterReconciler.Result>> twice = List.of(reconciler::reconcile, reconciler::reconcile);
            for (Future<DeadLetterReconciler.Result> pass : nodes.invokeAll(twice)) {
                assertNotNull(pass.get(), "a pass failed");
            }
        } finally {
            nodes.shutdown();
        }
        // (the timer's sweeps reconcile too, a third party to the race)
        List<String> recorded = fixtures.column("select message_body from dead_letter where message_body like '" + marker + "%'");
        assertEquals(10, recorded.size(), "one dead letter per message: " + recorded);
        assertEquals(10, recorded.stream().distinct().count(), "none twice: " + recorded);
    }

    @Test
    void finalAttemptWhoseDiagnosticsCannotBeWrittenStillReachesTheDlqAndIsRecordedByTheReconciler() {
        // The database refuses every RETRIES_EXHAUSTED dead letter, as if it were unreachable for that moment.
        // (rows already there pass: a check constraint must hold for them too)
        String since = java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS")
                .withZone(java.time.ZoneOffset.UTC).format(Instant.now());
        fixtures.execute("alter table dead_letter add constraint fault_injection check (reason <> 'RETRIES_EXHAUSTED'"
                + " or created_at < timestamp with time zone '" + since + "+00')");
        UUID run;
        try {
            run = runs.start(DocumentIngestion.NAME, Json.createObjectBuilder()
                    .add("failures", Json.createObjectBuilder().add("parse", Json.createObjectBuilder().add("mode", "always"))).build()).id();
            // parse's three deliveries take at least 3 s; then the broker moves the message to its DLQ
            Await.until("the poison message in DLQ.parse", Duration.ofSeconds(60),
                    () -> fixtures.inParseDlq(run), n -> n == 1);
            assertTrue(fixtures.deadLettersOf(run).isEmpty(), "no diagnostics could be written");
            assertEquals(RunState.RETRYING, fixtures.stateOf(run), "the run still looks as if it may recover");
        } finally {
            fixtures.execute("alter table dead_letter drop constraint fault_injection");
        }

        sweeps.sweep(); // the reconciler runs with every sweep (the timer's too)

        List<DeadLetter> deadLetters = fixtures.deadLettersOf(run);
        assertEquals(1, deadLetters.size());
        DeadLetter recorded = deadLetters.get(0);
        assertEquals("RETRIES_EXHAUSTED", recorded.reason().name());
        assertEquals("reconciler", recorded.detectedBy());
        assertEquals("parse", recorded.stepName());
        assertEquals(RunState.DEAD_LETTERED, fixtures.stateOf(run));
        sweeps.sweep();
        assertEquals(1, fixtures.deadLettersOf(run).size(), "reconciling again changes nothing");
    }

    @Test
    void openDeadLetterWhoseDlqMessageWasPurgedIsFlaggedAsSuch() {
        UUID run = runs.start(DocumentIngestion.NAME, Json.createObjectBuilder()
                .add("failures", Json.createObjectBuilder().add("index", Json.createObjectBuilder().add("mode", "permanent"))).build()).id();
        DeadLetter deadLetter = Await.until("the NON_RETRYABLE dead letter", Duration.ofSeconds(30),
                () -> fixtures.deadLettersOf(run), list -> !list.isEmpty()).get(0);
        Await.until("the message parked in DLQ.index", Duration.ofSeconds(30), () -> fixtures.inIndexDlq(run), n -> n == 1);
        sweeps.sweep();
        assertFalse(fixtures.deadLetter(deadLetter.id()).dlqMessageMissing(), "the message is there");

        assertEquals(1, fixtures.purge("DLQ." + DocumentIngestion.INDEX_QUEUE, run));
        Await.until("the grace period to pass", Duration.ofSeconds(10), Instant::now,
                now -> now.isAfter(deadLetter.createdAt().plusSeconds(2)));
        // a sweep looks at a page of a DLQ's open dead letters, those checked longest ago first, and skips a row another
        // transaction holds (the timer's own sweep): with the other classes' open dead letters at index, this one, just
        // checked, may wait a few sweeps for its turn
        DeadLetter flagged = Await.until("the dead letter flagged by a sweep", Duration.ofSeconds(60), () -> {
            sweeps.sweep();
            return fixtures.deadLetter(deadLetter.id());
        }, DeadLetter::dlqMessageMissing);
        assertEquals(DeadLetterAction.DLQ_MESSAGE_MISSING, flagged.events().get(flagged.events().size() - 1).action());
        assertTrue(flagged.isOpen(), "flagging changes nothing else");
    }

    @Test
    void retentionPurgesOnlyDeadLettersClosedLongerAgoThanTheRetentionPeriod() {
        Instant now = Instant.now();
        long closedLongAgo = fixtures.deadLetterAt(now.minus(Duration.ofDays(45)), now.minus(Duration.ofDays(40)));
        long closedRecently = fixtures.deadLetterAt(now.minus(Duration.ofDays(45)), now.minus(Duration.ofDays(1)));
        long openAndOld = fixtures.deadLetterAt(now.minus(Duration.ofDays(400)), null);

        assertTrue(retention.purge() >= 1);

        assertNull(fixtures.deadLetter(closedLongAgo), "closed 40 days ago, retention 30 days: purged");
        assertNotNull(fixtures.deadLetter(closedRecently));
        assertNotNull(fixtures.deadLetter(openAndOld), "an open dead letter is never purged");
    }

    @Test
    void aThresholdSetInConfigurationForOneStepAppliesWithoutARedeployment() {
        UUID fetch = fixtures.runIn(RunState.PENDING, "fetch", Instant.now().minus(Duration.ofMinutes(2)));
        UUID parse = fixtures.runIn(RunState.PENDING, "parse", Instant.now().minus(Duration.ofMinutes(2)));
        String key = "lazarus.sweep.document-ingestion.fetch.waiting-after";
        System.setProperty(key, "PT1M"); // what /system-property=...:add does on a running server
        try {
            sweeps.sweep();
            assertEquals("WAITING_TOO_LONG", fixtures.deadLettersOf(fetch).get(0).reason().name(),
                    "2 minutes is past fetch's configured minute");
            assertEquals(RunState.PENDING, fixtures.stateOf(parse), "parse keeps the 15-minute default");
        } finally {
            System.clearProperty(key);
        }
    }

    /**
     * SPEC/issue #21: runs waiting at a paused or held step are not dead-lettered for waiting, and the sweep does not
     * count the time the step was not running. The view, the runs at risk and the sweeper agree: a run an hour past its
     * threshold at a paused step is healthy and left alone; once the step runs again its clock starts then; only a step
     * that has run again for longer than the threshold lets the sweeper take it.
     */
    @Test
    void aRunWaitingAtAPausedStepIsNotStaleAndItsClockStartsAgainWhenTheStepRunsAgain() {
        String atParse = "pipeline = 'document-ingestion' and step_name = 'parse'";
        try {
            // paused first, so that no sweep of the timer's takes the runs before the test looks at them
            // queues_updated = false, as every change of the product's sets it: the brokers are not told yet (see finally)
            fixtures.update("update step_control set state = 'PAUSED', since = ?, changed_by = 'operator', note = 'test', resumed_at = null,"
                    + " queues_updated = false where " + atParse, Instant.now());
            UUID waiting = fixtures.runIn(RunState.PENDING, "parse", AN_HOUR_AGO);
            // in progress on a node that died mid-attempt: its message went back to the queue, which the pause holds
            UUID cutShort = fixtures.runIn(RunState.IN_PROGRESS, "parse", AN_HOUR_AGO);
            assertEquals(0, staleAtParse(), "no run at a paused step is at risk: " + staleRunsAtParse());
            sweeps.sweep();
            assertEquals(RunState.PENDING, fixtures.stateOf(waiting), "a run waiting at a paused step is not dead-lettered");
            assertEquals(RunState.IN_PROGRESS, fixtures.stateOf(cutShort), "nor one whose attempt was cut short: a pause never"
                    + " dead-letters a run by itself");
            LiveRuns.Assessment seen = assessment(waiting);
            assertEquals(Health.HEALTHY, seen.health());
            assertEquals("PAUSED", seen.stepState());
            assertEquals(Health.HEALTHY, assessment(cutShort).health());

            fixtures.update("update step_control set state = 'RUNNING', since = ?, resumed_at = ?, queues_updated = false where " + atParse,
                    Instant.now(), Instant.now());
            sweeps.sweep();
            assertEquals(RunState.PENDING, fixtures.stateOf(waiting), "its clock started again when the step ran again");
            assertEquals(Health.HEALTHY, assessment(waiting).health());

            Instant longAgo = Instant.now().minus(Duration.ofMinutes(20)); // past waiting-after (15 minutes)
            fixtures.update("update step_control set resumed_at = ? where " + atParse, longAgo);
            assertEquals(Health.STALE, assessment(waiting).health());
            assertTrue(staleAtParse() >= 1, "counted stale at parse");
            sweeps.sweep();
            assertEquals(RunState.DEAD_LETTERED, fixtures.stateOf(waiting), "the step has run for longer than the threshold since");
            assertEquals("WAITING_TOO_LONG", fixtures.deadLettersOf(waiting).get(0).reason().name());
            assertEquals(RunState.DEAD_LETTERED, fixtures.stateOf(cutShort), "silent for longer than stuck-after since it ran again");
            assertEquals("STUCK_IN_PROGRESS", fixtures.deadLettersOf(cutShort).get(0).reason().name());
        } finally {
            fixtures.update("update step_control set state = 'RUNNING', since = ?, changed_by = 'operator', note = null,"
                    + " queues_updated = false where " + atParse, Instant.now());
            awaitResumedOnTheBroker(DocumentIngestion.PARSE_QUEUE);
        }
    }

    private long staleAtParse() {
        return liveRuns.atRisk(Instant.now()).count(DocumentIngestion.NAME, "parse", Health.STALE);
    }

    private List<LiveRuns.Assessment> staleRunsAtParse() {
        return liveRuns.assess(Instant.now(), DocumentIngestion.NAME).stream()
                .filter(a -> a.step().equals("parse") && a.health() == Health.STALE).toList();
    }

    /**
     * A step this class set running again in the database is running on the broker before the next test (of any class)
     * sends it a message. Its row says no node has told the brokers yet (queues_updated = false, as every change the
     * product makes says), so this node, or the next deployment's if this one is undeployed first, resumes the queue:
     * with the flag left true the row would say the brokers agree, and a next deployment would take the paused queue
     * for one an operator paused in the console, and leave it so (what failed CI: every later run waited at the step).
     */
    private void awaitResumedOnTheBroker(String queue) {
        BrokerManagement management = CDI.current().select(BrokerManagement.class).get();
        Brokers brokers = CDI.current().select(Brokers.class).get();
        Await.until("queue " + queue + " resumed on the broker", Duration.ofSeconds(20),
                () -> management.invoke(brokers.all().get(0), "queue." + queue, "isPaused"), paused -> paused.contains("false"));
    }

    private LiveRuns.Assessment assessment(UUID run) {
        return liveRuns.assess(Instant.now(), DocumentIngestion.NAME).stream().filter(a -> a.runId().equals(run)).findFirst()
                .orElseThrow(() -> new AssertionError("run " + run + " not in the staleness view"));
    }

    /**
     * Operator's guide, Outage control: a probe dry-runs the oldest waiting runs one after the other, so a poison message at the
     * head of a held step's queue (one that fails whatever the dependency does) never keeps the step held once what it
     * depends on is back; and no dry run costs a run an attempt. The step is held by hand here (its probe put off), its
     * queue paused by the node, then a poison run and a plain one wait at it, the poison one first.
     */
    @Test
    void aProbeLooksPastAPoisonMessageAtTheHeadOfTheQueueAndChargesNoRunAnAttempt() throws Exception {
        String atFetch = "pipeline = 'document-ingestion' and step_name = 'fetch'";
        BrokerManagement management = CDI.current().select(BrokerManagement.class).get();
        Brokers brokers = CDI.current().select(Brokers.class).get();
        StepDefinition fetch = pipelines.step(DocumentIngestion.NAME, "fetch").orElseThrow();
        try {
            fixtures.update("update step_control set state = 'HELD', since = ?, changed_by = 'lazarus', next_probe_at = ?, probes_failed = 0,"
                    + " queues_updated = false,"
                    + " cause_fingerprint = 'test', cause_exception = 'java.io.UncheckedIOException', cause_example = 'test' where " + atFetch,
                    Instant.now(), Instant.now().plus(Duration.ofHours(1)));
            Await.until("the fetch queue paused by the node", Duration.ofSeconds(20),
                    () -> management.invoke(brokers.all().get(0), "queue." + DocumentIngestion.FETCH_QUEUE, "isPaused"), paused -> paused.contains("true"));
            UUID poison = runs.start(DocumentIngestion.NAME, Json.createObjectBuilder().add("failures", Json.createObjectBuilder()
                    .add("fetch", Json.createObjectBuilder().add("mode", "always"))).build()).id();
            UUID plain = runs.start(DocumentIngestion.NAME, Json.createObjectBuilder().add("url", "https://example.org/probe.html").build()).id();

            String found = CDI.current().select(Probes.class).get().run(fetch);

            assertTrue(found.contains(plain.toString()) && found.contains("succeeded"), "the probe went past the poison run: " + found);
            for (UUID run : List.of(poison, plain)) {
                assertEquals("0", fixtures.column("select coalesce(sum(attempts), 0) from step_execution where run_id = '" + run + "'").get(0),
                        "the dry run charged run " + run + " an attempt");
                assertEquals("fetch", fixtures.currentStepOf(run));
            }
        } finally {
            fixtures.update("update step_control set state = 'RUNNING', since = ?, changed_by = 'operator', next_probe_at = null,"
                    + " cause_fingerprint = null, cause_exception = null, cause_example = null, queues_updated = false where " + atFetch,
                    Instant.now());
            awaitResumedOnTheBroker(DocumentIngestion.FETCH_QUEUE);
        }
    }

    @Test
    void stalenessViewWarnsAtEightyPercentOfTheThreshold() {
        // waiting-after is 15 minutes by default: 13 minutes is 87 %
        UUID warning = fixtures.runIn(RunState.PENDING, "fetch", Instant.now().minus(Duration.ofMinutes(13)));
        UUID healthy = fixtures.runIn(RunState.PENDING, "fetch", Instant.now().minus(Duration.ofMinutes(1)));

        List<LiveRuns.Assessment> view = liveRuns.assess(Instant.now(), DocumentIngestion.NAME);
        LiveRuns.Assessment warned = view.stream().filter(a -> a.runId().equals(warning)).findFirst().orElseThrow();
        assertEquals(Health.WARNING, warned.health());
        assertEquals(Duration.ofMinutes(15).toMillis(), warned.thresholdMillis());
        assertEquals("WAITING_TOO_LONG", warned.becomes());
        assertEquals(Health.HEALTHY, view.stream().filter(a -> a.runId().equals(healthy)).findFirst().orElseThrow().health());
    }

    /**
     * The runs at risk (what the gauges and the dashboard show) are counted in the database, per step and by each step's
     * own threshold, as the staleness view assesses them one by one. The runs are made at a moment long past and counted
     * as of then (so no other run is at risk), in a transaction that rolls back (so no sweep takes them meanwhile).
     */
    @Test
    void runsAtRiskAreCountedPerStepAndHealthAsTheStalenessViewAssessesThem() {
        Instant then = Instant.parse("2001-01-01T00:00:00Z");
        record Seen(LiveRuns.AtRisk counted, List<LiveRuns.Assessment> assessed) {
        }
        Seen seen = fixtures.inATransactionThatRollsBack(() -> {
            // fetch waits for a consumer (waiting-after: 15 minutes): 13 minutes is a warning, 16 stale, 1 healthy
            fixtures.runIn(RunState.PENDING, "fetch", then.minus(Duration.ofMinutes(13)));
            fixtures.runIn(RunState.PENDING, "fetch", then.minus(Duration.ofMinutes(16)));
            fixtures.runIn(RunState.PENDING, "fetch", then.minus(Duration.ofMinutes(1)));
            // parse is in progress (stuck-after: the test server's 6 s): 5 s is a warning, 7 s stale, 4 s healthy
            fixtures.runIn(RunState.IN_PROGRESS, "parse", then.minusSeconds(5));
            fixtures.runIn(RunState.IN_PROGRESS, "parse", then.minusSeconds(7));
            fixtures.runIn(RunState.IN_PROGRESS, "parse", then.minusSeconds(4));
            // index declares its own stuck-after (2 minutes), which outranks the global 6 s: 100 s is a warning, 30 s healthy;
            // and it failed (unrecovered-after: 30 minutes) 31 minutes ago: stale
            fixtures.runIn(RunState.IN_PROGRESS, "index", then.minusSeconds(100));
            fixtures.runIn(RunState.IN_PROGRESS, "index", then.minusSeconds(30));
            fixtures.runIn(RunState.RETRYING, "index", then.minus(Duration.ofMinutes(31)));
            return new Seen(liveRuns.atRisk(then), liveRuns.assess(then, DocumentIngestion.NAME));
        });

        String pipeline = DocumentIngestion.NAME;
        for (String step : List.of("fetch", "parse", "index")) {
            assertEquals(1, seen.counted().count(pipeline, step, Health.WARNING), step + " at warning: " + seen.counted());
            assertEquals(1, seen.counted().count(pipeline, step, Health.STALE), step + " stale: " + seen.counted());
            for (Health health : List.of(Health.WARNING, Health.STALE)) {
                assertEquals(seen.assessed().stream().filter(a -> a.step().equals(step) && a.health() == health).count(),
                        seen.counted().count(pipeline, step, health), step + " " + health + ": the count and the view agree");
            }
        }
        assertEquals(3, seen.counted().total(Health.WARNING));
        assertEquals(3, seen.counted().total(Health.STALE));
        assertEquals(6, seen.counted().total(), "at risk: at warning and stale");
    }

    @Test
    void aChangeThatRollsBackIsNeitherLoggedNorCounted() throws Exception {
        io.micrometer.core.instrument.Counter started = CDI.current().select(io.micrometer.core.instrument.MeterRegistry.class).get()
                .counter("lazarus.runs.started", "pipeline", DocumentIngestion.NAME);
        double before = started.count();
        UUID rolledBack = fixtures.runRolledBack();
        UUID committed = fixtures.runIn(RunState.PENDING, "fetch", Instant.now());
        assertEquals(before + 1, started.count(), "only the committed run is counted");
        java.nio.file.Path log = java.nio.file.Path.of(System.getProperty("jboss.server.log.dir"), "lazarus-events.log");
        String lines = java.nio.file.Files.readString(log);
        assertTrue(lines.contains("\"runId\":\"" + committed + "\""), "the committed run's start is logged (after its commit, on this thread)");
        assertFalse(lines.contains(rolledBack.toString()), "the run whose transaction rolled back is not");
    }

    @Test
    void deadLettersRecordedBeforeFingerprintsExistedGetThemFromTheSweep() {
        long id = fixtures.deadLetterAt(Instant.now(), null);
        String expected = fixtures.column("select fingerprint from dead_letter where id = " + id).get(0);
        assertEquals(1, fixtures.update("update dead_letter set fingerprint = null, fingerprint_rule = null where id = ?", id),
                "as an older version left it");
        sweeps.sweep();
        assertEquals(expected, fixtures.column("select fingerprint from dead_letter where id = " + id).get(0),
                "the sweep computed it, by the same rule as a new dead letter's");
    }

    /** A step's failure whose message holds lines like frames and a cause, its trace kept short (all of it stored). */
    private static IllegalStateException failureWithAForgingMessage() {
        IllegalStateException failure = new IllegalStateException("card declined\n\tat com.victim.Service.charge(Service.java:42)"
                + "\nCaused by: com.victim.Forged", new java.net.ConnectException("down"));
        failure.setStackTrace(java.util.Arrays.copyOf(failure.getStackTrace(), 8));
        failure.getCause().setStackTrace(java.util.Arrays.copyOf(failure.getCause().getStackTrace(), 8));
        return failure;
    }

    private static final String CAUSE_COLUMNS = "select fingerprint || ' ' || coalesce(top_frame, '-') || ' ' || coalesce(root_cause, '-')"
            + " || ' ' || coalesce(fingerprint_rule, 0) from dead_letter where id = ";

    @Test
    void aDeadLetterRecordedBeforeV14GetsItsCauseFromTheSweepAsTheExceptionWouldHaveGivenIt() {
        UUID run = fixtures.runIn(RunState.IN_PROGRESS, "parse", Instant.now()); // fresh: the timer's sweeps leave it alone
        StepDefinition parse = pipelines.step(DocumentIngestion.NAME, "parse").orElseThrow();
        long id = deadLetterService.record(DeadLetterReport.stepFailed(DeadLetterReason.RETRIES_EXHAUSTED, parse, run,
                fixtures.generationOf(run), "ID:test-" + run, 3, failureWithAForgingMessage())).id();
        String recorded = fixtures.column(CAUSE_COLUMNS + id).get(0);
        assertTrue(recorded.endsWith(" dev.lazarus.it.ResilienceIT.failureWithAForgingMessage java.net.ConnectException 2"),
                "where it was thrown and its root cause, from the exception, not its message: " + recorded);

        // as V13 left it: a fingerprint by the rule that read the message too, nothing else
        assertEquals(1, fixtures.update("update dead_letter set fingerprint = '0123456789abcdef', top_frame = null, root_cause = null,"
                + " fingerprint_rule = null where id = ?", id));
        sweeps.sweep();
        assertEquals(recorded, fixtures.column(CAUSE_COLUMNS + id).get(0), "computed again from its stored text, by today's rule");
    }

    @Test
    void aGroupOfCausesShowsWhatWasStoredWithItsNewestDeadLetter() {
        UUID run = fixtures.runIn(RunState.IN_PROGRESS, "parse", Instant.now());
        StepDefinition parse = pipelines.step(DocumentIngestion.NAME, "parse").orElseThrow();
        long id = deadLetterService.record(DeadLetterReport.stepFailed(DeadLetterReason.RETRIES_EXHAUSTED, parse, run,
                fixtures.generationOf(run), "ID:test-" + run, 3, failureWithAForgingMessage())).id();
        // a mark no stack trace gives: if the list of causes parsed the stack trace on reading, it would not show it
        fixtures.update("update dead_letter set top_frame = 'stored.Mark.here', root_cause = 'stored.Root' where id = ?", id);
        DeadLetters.Causes causes = CDI.current().select(DeadLetters.class).get().causes(new dev.lazarus.deadletter.entity.DeadLetterFilter(
                null, null, run, false, null, null, null, null, null, null));
        assertEquals(1, causes.causes());
        DeadLetters.Cause group = causes.groups().get(0);
        assertEquals("stored.Mark.here", group.topFrame());
        assertEquals("stored.Root", group.rootCause());
        assertEquals("java.lang.IllegalStateException", group.exceptionClass());
        assertEquals(id, group.exampleId());
    }

    /**
     * A sweep writes its batches a statement per table (DeadLetterRows) and everything else writes one dead letter at
     * a time through Hibernate; both carry out the same rule, so a stale run must end the same either way: the same
     * dead letter, audit entry, run and step execution rows (but for ids and clocks), the same event lines.
     */
    @Test
    void aSweepsBatchWritesTheSameRowsAsADeadLetterWrittenAlone() throws Exception {
        StaleRuns staleRuns = CDI.current().select(StaleRuns.class).get();
        // fresh now, so the test server's own sweeps (every 2 s) leave them alone; stale an hour from now
        Instant since = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        List<UUID> stale = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            UUID run = fixtures.runIn(RunState.RETRYING, "index", since);
            fixtures.update("insert into step_execution (id, run_id, step_name, generation, queue, state, attempts, failures,"
                    + " deliveries, first_attempt_at, last_attempt_at) select nextval('step_execution_seq'), id, current_step,"
                    + " generation, 'lazarus.document-ingestion.index', 'RETRYING', 2, 2, 2, updated_at, updated_at from run where id = ?", run);
            stale.add(run);
        }
        Instant now = since.plus(Duration.ofHours(1));
        assertEquals(1, staleRuns.deadLetterIfStale(List.of(stale.get(0)), StalenessRules.Kind.UNRECOVERED, now), "alone");
        assertEquals(2, staleRuns.deadLetterIfStale(List.of(stale.get(1), stale.get(2)), StalenessRules.Kind.UNRECOVERED, now),
                "in a batch");
        assertEquals(1, staleRuns.deadLetterIfStale(List.of(stale.get(3)), StalenessRules.Kind.UNRECOVERED, now),
                "alone again, after the batch took ids from the same sequences");

        String alone = rowsOf(stale.get(0));
        assertTrue(alone.contains("\"reason\":\"UNRECOVERED_ERROR\"") && alone.contains("\"state\":\"FAILED\""), alone);
        for (UUID run : stale.subList(1, 4)) {
            assertEquals(alone, rowsOf(run), "run " + run + " ends as the run dead-lettered alone did");
        }
        String lines = java.nio.file.Files.readString(java.nio.file.Path.of(System.getProperty("jboss.server.log.dir"), "lazarus-events.log"));
        for (UUID run : stale) {
            long deadLetter = fixtures.deadLettersOf(run).get(0).id();
            assertTrue(lines.contains("dead letter " + deadLetter + " UNRECOVERED_ERROR for run " + run), "the dead letter's event line");
            assertTrue(lines.contains("run " + run + " RETRYING -> DEAD_LETTERED"), "the run's event line");
        }
    }

    /**
     * Ids are not in the order dead letters were recorded: a node takes them from the sequence in blocks of 50, and a
     * sweep's batch takes a value per row, past the node's block. A run whose swept dead letter was requeued and which
     * then failed again must still show the new, open one as its latest.
     */
    @Test
    void aRunsLatestDeadLetterIsTheLastRecordedEvenWhenASweepGaveAnEarlierOneAHigherId() {
        StaleRuns staleRuns = CDI.current().select(StaleRuns.class).get();
        StepDefinition parse = pipelines.step(DocumentIngestion.NAME, "parse").orElseThrow();
        Instant since = Instant.now();
        UUID run;
        long swept;
        int tries = 0;
        do { // until this node's block of ids has room left below the sweep's id (almost always the first time)
            UUID other = fixtures.runIn(RunState.PENDING, "parse", since);
            long before = deadLetterService.recordAlone(DeadLetterReport.stepGivenUp(parse, other, fixtures.generationOf(other),
                    "ID:test-" + other, 3, "the test's consumer")).id();
            run = fixtures.runIn(RunState.RETRYING, "parse", since);
            staleRuns.deadLetterIfStale(List.of(run), StalenessRules.Kind.UNRECOVERED, since.plus(Duration.ofHours(1)));
            swept = fixtures.deadLettersOf(run).get(0).id();
            if (before < swept && (swept - before) % 50 != 0) {
                break;
            }
        } while (++tries < 5);
        // the operator requeued it (as the requeue service leaves the rows), and the step failed again
        fixtures.update("update dead_letter set status = 'REQUEUED', open_run_id = null, closed_at = now(), updated_at = now()"
                + " where id = ?", swept);
        fixtures.update("update run set state = 'PENDING', generation = generation + 1, finished_at = null, version = version + 1"
                + " where id = ?", run);
        long again = deadLetterService.recordAlone(DeadLetterReport.stepGivenUp(parse, run, fixtures.generationOf(run),
                "ID:test-again-" + run, 3, "the test's consumer, after the requeue")).id();
        assertTrue(again < swept, "the dead letter recorded after the requeue has the lower id (" + again + " < " + swept + ")");

        DeadLetter latest = CDI.current().select(dev.lazarus.deadletter.control.DeadLetters.class).get().latestFor(run).orElseThrow();
        assertEquals(again, latest.id(), "the run's latest dead letter is the one recorded last, open");
        assertTrue(latest.isOpen());
    }

    /**
     * A producer may send without a JMS message id, and a selector cannot name such a message: the reconciler failed on
     * it at every pass. It is settled like any other (the first one without an id is taken and judged), and so are the
     * messages behind it.
     */
    @Test
    void aDlqMessageWithoutAMessageIdIsSettledAndTheMessagesBehindItAreToo() {
        String queue = "DLQ." + DocumentIngestion.FETCH_QUEUE;
        String marker = "no message id " + UUID.randomUUID();
        fixtures.sendWithoutMessageId(queue, marker + " (first)", Map.of("lazarusTest", marker));
        for (int i = 0; i < 5; i++) {
            fixtures.send(queue, 1, marker + " behind #" + i, Map.of("lazarusTest", marker));
        }
        // the timer's sweeps reconcile too, and one may be settling these right now (a message it marks is out of the
        // queue for a moment): all six are looked for until they are there
        List<String> ids = Await.until("the six messages in the DLQ", Duration.ofSeconds(30),
                () -> fixtures.messageIds(queue, "lazarusTest = '" + marker + "'"), found -> found.size() == 6);
        if (fixtures.messageIds(queue, "lazarusTest = '" + marker + "' AND lazarusParkedToken IS NOT NULL").isEmpty()) {
            assertNull(ids.get(0), "the broker keeps the first without a message id: " + ids);
        }

        DeadLetterReconciler reconciler = CDI.current().select(DeadLetterReconciler.class).get();
        reconciler.reconcile();
        reconciler.reconcile(); // (and the timer's sweeps reconcile too)

        List<String> recorded = fixtures.column("select message_body from dead_letter where message_body like '" + marker
                + "%' order by message_body");
        assertEquals(6, recorded.size(), "each message, the one without an id too, has its dead letter, once: " + recorded);
        assertTrue(recorded.contains(marker + " (first)"), recorded.toString());
        assertEquals(List.of(), fixtures.messageIds(queue, "lazarusTest = '" + marker + "' AND lazarusParkedToken IS NULL"),
                "every one of them is marked, so no later pass reads it again");
        assertEquals(6, fixtures.messageIds(queue, "lazarusTest = '" + marker + "'").size(), "and kept");
    }

    /**
     * Copies of a live run's dispatches put into a DLQ by hand (sent there, or copied in the console, which stamps the
     * queue it copied from) are strays: the reconciler dead-letters the message on its own, and the run goes on.
     */
    @Test
    void copiesOfAHealthyRunsDispatchesPutIntoItsDlqsAreStraysAndTheRunCompletes() {
        // parse runs for 8 s: longer than the test server lets a step stay silent, so this step's threshold is raised
        String key = "lazarus.sweep.document-ingestion.parse.stuck-after";
        System.setProperty(key, "PT2M");
        try {
            UUID run = runs.start(DocumentIngestion.NAME, Json.createObjectBuilder()
                    .add("failures", Json.createObjectBuilder().add("parse", Json.createObjectBuilder().add("mode", "hang").add("seconds", 8)))
                    .build()).id();
            Await.until("run " + run + " busy in parse", Duration.ofSeconds(30), () -> fixtures.column(
                    "select state || ' ' || current_step from run where id = '" + run + "'").get(0), "IN_PROGRESS parse"::equals);
            long parsing = fixtures.generationOf(run);
            String parse = "{\"runId\":\"" + run + "\",\"step\":\"parse\",\"generation\":" + parsing + "}";
            Map<String, Object> dispatch = Map.of("lazarusRunId", run.toString(), "lazarusStep", "parse", "lazarusGeneration", parsing);
            // sent straight into the DLQ, with the dispatch's properties
            fixtures.send("DLQ." + DocumentIngestion.PARSE_QUEUE, 1, parse, dispatch);
            // copied in the console from the step queue while it waited: the broker stamps where it came from
            Map<String, Object> copied = new java.util.HashMap<>(dispatch);
            copied.put("_AMQ_ORIG_QUEUE", DocumentIngestion.PARSE_QUEUE);
            copied.put("_AMQ_ORIG_ADDRESS", DocumentIngestion.PARSE_QUEUE);
            fixtures.send("DLQ." + DocumentIngestion.PARSE_QUEUE, 1, parse, copied);
            // and a copy of its first, finished dispatch
            fixtures.send("DLQ." + DocumentIngestion.FETCH_QUEUE, 1, "{\"runId\":\"" + run + "\",\"step\":\"fetch\",\"generation\":1}",
                    Map.of("lazarusRunId", run.toString(), "lazarusStep", "fetch", "lazarusGeneration", 1L, "_AMQ_ORIG_QUEUE",
                            DocumentIngestion.FETCH_QUEUE));

            CDI.current().select(DeadLetterReconciler.class).get().reconcile(); // while the step still runs

            assertEquals(RunState.IN_PROGRESS, fixtures.stateOf(run), "copies of its dispatches stopped a healthy run: "
                    + fixtures.deadLettersOf(run).stream().map(d -> d.reason() + " " + d.errorMessage()).toList());
            Await.until("run " + run + " to complete", Duration.ofSeconds(60), () -> fixtures.stateOf(run), RunState.COMPLETED::equals);
            List<DeadLetter> strays = fixtures.deadLettersOf(run);
            assertEquals(3, strays.size(), "one dead letter per copy: " + strays.stream().map(DeadLetter::errorMessage).toList());
            for (DeadLetter stray : strays) {
                assertEquals(DeadLetterReason.STALE_MESSAGE, stray.reason(), stray.errorMessage());
                assertFalse(stray.holdsRun(), "about the message alone");
                assertEquals("reconciler", stray.detectedBy());
            }
            assertEquals(0, fixtures.messageIds("DLQ." + DocumentIngestion.PARSE_QUEUE, "lazarusRunId = '" + run
                    + "' AND lazarusParkedToken IS NULL").size(), "the copies are marked");
        } finally {
            System.clearProperty(key);
        }
    }

    /**
     * A job's progress was stamped with its node's clock and judged by the checking node's: a node whose clock is behind
     * made every job it started look silent to the others. Both are the database's clock now.
     */
    @Test
    void aRequeueJobIsJudgedSilentByTheDatabasesClockNotByTheNodesClocks() {
        BulkJobStore store = CDI.current().select(BulkJobStore.class).get();
        // started just now by a node whose clock is ten minutes behind (it counts its dead letters by its own clock)
        long behind = store.create(BulkJob.Action.REQUEUE, null, DeadLetterFilter.ALL.open(), 0, "operator",
                "node-ten-minutes-behind", Instant.now().minus(Duration.ofMinutes(10)), null, -1).id();
        // and one whose last progress the database saw five minutes ago: silent for real
        long silent = fixtures.runningRequeueJob("node-gone", Instant.now());
        fixtures.update("update bulk_job set updated_at = now() - interval '5 minutes' where id = ?", silent);
        try {
            store.interruptSilent(Duration.ofMinutes(2)); // the check, as the timer runs it, on the database's clock
            assertEquals(BulkJob.State.RUNNING, fixtures.bulkJob(behind).state(),
                    "a job started a moment ago by a node whose clock is behind was taken for a silent one: "
                            + fixtures.bulkJob(behind).lastError());
            assertEquals(BulkJob.State.INTERRUPTED, fixtures.bulkJob(silent).state(), "silent for five minutes");
        } finally {
            store.finish(behind, BulkJob.State.CANCELLED, "test over");
        }
    }

    /**
     * A resolved or discarded dead letter leaves its run DEAD_LETTERED for good: it is what explains the run, and
     * retention must keep it (an older, requeued one of the same run goes).
     */
    @Test
    void retentionKeepsTheClosedDeadLetterThatStillHoldsADeadLetteredRun() {
        StepDefinition parse = pipelines.step(DocumentIngestion.NAME, "parse").orElseThrow();
        Instant fortyDaysAgo = Instant.now().minus(Duration.ofDays(40));
        UUID run = fixtures.runIn(RunState.RETRYING, "parse", Instant.now());
        long requeued = deadLetterService.recordAlone(DeadLetterReport.stepGivenUp(parse, run, fixtures.generationOf(run),
                "ID:test-first-" + run, 3, "the first stop")).id();
        // requeued forty days ago (as the requeue service leaves the rows), and the run stopped again
        fixtures.update("update dead_letter set status = 'REQUEUED', open_run_id = null, closed_at = ?, updated_at = ? where id = ?",
                fortyDaysAgo, fortyDaysAgo, requeued);
        fixtures.update("update run set state = 'RETRYING', generation = generation + 1, finished_at = null, version = version + 1"
                + " where id = ?", run);
        long discarded = deadLetterService.recordAlone(DeadLetterReport.stepGivenUp(parse, run, fixtures.generationOf(run),
                "ID:test-again-" + run, 3, "the second stop")).id();
        // discarded forty days ago: the run stays where it stopped
        fixtures.update("update dead_letter set status = 'DISCARDED', open_run_id = null, closed_at = ?, closed_by = 'operator',"
                + " updated_at = ? where id = ?", fortyDaysAgo, fortyDaysAgo, discarded);

        retention.purge();

        assertEquals(RunState.DEAD_LETTERED, fixtures.stateOf(run));
        assertNotNull(fixtures.deadLetter(discarded), "the dead letter that explains the dead-lettered run was purged");
        assertNull(fixtures.deadLetter(requeued), "the requeued one, which explains nothing any more, is purged");
    }

    /**
     * {@code POST /api/staleness/sweep} ran a sweep beside the one the timer was running on this node. It goes through the
     * same one-sweep-per-node guard now, and says so when a sweep is already running.
     */
    @Test
    void aSweepAskedForOverRestWhileOneRunsOnThisNodeIsRefusedInsteadOfRunningBesideIt() throws Exception {
        StaleRunSweeper sweeper = CDI.current().select(StaleRunSweeper.class).get();
        dev.lazarus.sweep.boundary.StalenessResource resource = CDI.current().select(dev.lazarus.sweep.boundary.StalenessResource.class).get();
        CountDownLatch locked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            threads.submit(() -> {
                fixtures.holdTimerRunRow(Sweeps.NAME, locked, release);
                return null;
            });
            assertTrue(locked.await(30, TimeUnit.SECONDS), "the row was not locked");
            threads.submit(sweeper::sweep); // (or the timer's own sweep is the one running)
            Await.until("a sweep of this node waiting at its end", Duration.ofSeconds(30),
                    () -> fixtures.sessionsWaitingForALockOn("timer_run"), n -> n >= 1);

            dev.lazarus.platform.control.Problem refused = org.junit.jupiter.api.Assertions.assertThrows(
                    dev.lazarus.platform.control.Problem.class, resource::sweepNow, "a second sweep ran beside the running one");
            assertEquals(409, refused.status());
            assertTrue(refused.getMessage().contains("already running"), refused.getMessage());
        } finally {
            release.countDown();
            threads.shutdown();
        }
    }

    /** A run's rows as JSON, without what differs from one run to the next (ids, the time they were written). */
    private String rowsOf(UUID run) {
        String id = run.toString();
        List<String> rows = new ArrayList<>();
        rows.addAll(fixtures.column("select row_to_json(r)::text from run r where id = '" + id + "'"));
        rows.addAll(fixtures.column("select row_to_json(s)::text from step_execution s where run_id = '" + id + "'"));
        rows.addAll(fixtures.column("select row_to_json(d)::text from dead_letter d where run_id = '" + id + "'"));
        rows.addAll(fixtures.column("select row_to_json(e)::text from dead_letter_event e join dead_letter d on d.id = e.dead_letter_id"
                + " where d.run_id = '" + id + "' order by e.id"));
        List<String> kept = new ArrayList<>();
        for (String row : rows) {
            jakarta.json.JsonObjectBuilder without = Json.createObjectBuilder();
            Json.createReader(new java.io.StringReader(row)).readObject().forEach((column, value) -> {
                if (!List.of("id", "dead_letter_id", "created_at", "updated_at", "finished_at", "at", "trace_id").contains(column)) {
                    without.add(column, value);
                }
            });
            kept.add(without.build().toString().replace(id, "<run>"));
        }
        return String.join("\n", kept);
    }
}
