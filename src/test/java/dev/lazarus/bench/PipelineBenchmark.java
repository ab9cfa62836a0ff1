package dev.lazarus.bench;

import dev.lazarus.bench.relay.IdempotentLedgerHop;
import dev.lazarus.bench.relay.PlainHop;
import dev.lazarus.bench.relay.RelayHop;
import dev.lazarus.bench.relay.XaLedgerHop;
import dev.lazarus.it.Api;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * The pipeline benchmark suite (issue #9): Lazarus's 3-step demo pipeline with all its bookkeeping against a bare
 * XA relay in the same WildFly and the raw broker, on each database, in one run on one machine. See
 * src/site/markdown/benchmarks.md. {@code mvn -Pbench package}; writes {@code target/bench/pipeline.json},
 * {@code pipeline.md} and {@code pipeline.png}.
 *
 * <p>System properties: {@code bench.databases} (default {@code embedded,postgresql}), {@code bench.runs} (runs of the
 * step phase, 10000, after a warm-up of a tenth, as the relay's 10000 messages), {@code bench.e2e.runs} (runs of the
 * end-to-end phase, 3000), {@code bench.relay.messages} (10000), {@code bench.long.steps} (100000),
 * {@code bench.raw.seconds} (15), {@code bench.clients} (8), {@code bench.jfr} (false: true records a Flight Recorder
 * profile of WildFly during the measured step phase), {@code bench.quick} (only the relay and the step phase, no report).
 */
public final class PipelineBenchmark {

    static final String PIPELINE = "document-ingestion";
    /** The demo pipeline's first step queue: paused while a throughput phase's runs are submitted. */
    static final String FIRST_STEP_QUEUE = "lazarus.document-ingestion.fetch";
    static final int STEPS_PER_RUN = 3;
    /** Runs per batch submission (the API's default limit). */
    static final int BATCH = 1000;
    /** The long run's batches, and about how many runs it keeps live. */
    static final int LONG_RUN_BATCH = 100;
    static final int LONG_RUN_LIVE = 1_000;
    private static final Duration PHASE_TIMEOUT = Duration.ofMinutes(30);

    private final int clients = Integer.getInteger("bench.clients", 8);
    /**
     * The step phase measures as many runs as the relay messages, after a warm-up of a tenth like the relay's: with
     * 3 000 runs and 300 to warm up, the phase measured WildFly still compiling its hot path (4.2 ms of CPU per
     * step, against 2.2 ms with 10 000 after 1 000), while the relay's three small beans were long compiled.
     */
    private final int runs = Integer.getInteger("bench.runs", 10_000);
    private final int endToEndRuns = Integer.getInteger("bench.e2e.runs", 3000);
    private final int relayMessages = Integer.getInteger("bench.relay.messages", 10_000);
    private final int longSteps = Integer.getInteger("bench.long.steps", 100_000);
    private final Duration rawDuration = Duration.ofSeconds(Integer.getInteger("bench.raw.seconds", 15));
    /** Records a Flight Recorder profile of WildFly during the measured step phase ({@code target/bench/<db>-steps.jfr}). */
    private final boolean profile = Boolean.getBoolean("bench.jfr");
    /** Only the bare relay and the step phase, and no report: a quick look while working on the hot path. */
    private final boolean quick = Boolean.getBoolean("bench.quick");
    /**
     * Also measures the hot path's spike (issue #22): the same least bookkeeping a step needs (a read, then one statement
     * that moves the item and records the hop) once in the XA transaction and once as an idempotent consumer.
     */
    private final boolean spike = Boolean.getBoolean("bench.spike");
    private final AtomicLong sequence = new AtomicLong();

    public static void main(String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        List<String> databases = Arrays.stream(System.getProperty("bench.databases", "embedded,postgresql").split(","))
                .map(String::trim).filter(s -> !s.isEmpty()).toList();
        for (String database : databases) {
            if (!List.of("embedded", "postgresql").contains(database)) {
                throw new IllegalArgumentException("bench.databases: unknown database " + database + " (embedded or postgresql)");
            }
        }
        Path repo = Path.of(System.getProperty("bench.repo", ".")).toAbsolutePath().normalize();
        Path out = repo.resolve("target/bench");
        Files.createDirectories(out);
        if ("search".equals(System.getProperty("bench.only"))) {
            searchOnly(databases, repo, out);
            return;
        }
        PipelineBenchmark benchmark = new PipelineBenchmark();
        BenchReport report = new BenchReport(benchmark.settings());
        for (String database : databases) {
            try (BenchStack stack = BenchStack.up(database, repo, out)) {
                report.add(benchmark.measure(stack));
            }
            if (benchmark.quick) {
                continue; // a partial measurement makes no report
            }
            report.write(out); // after each database: a later one failing keeps what was measured
        }
        if (benchmark.quick) {
            System.exit(0);
        }
        log("wrote %s, %s and %s", out.resolve("pipeline.json"), out.resolve("pipeline.md"), out.resolve("pipeline.png"));
        System.out.println();
        System.out.println(Files.readString(out.resolve("pipeline.md")));
        System.exit(0);
    }

    /**
     * {@code -Dbench.only=search}: only the search phase ({@link SearchBenchmark}) on each database's fresh stack, its
     * figures in {@code target/bench/search.md}.
     */
    private static void searchOnly(List<String> databases, Path repo, Path out) throws Exception {
        StringBuilder md = new StringBuilder();
        for (String database : databases) {
            try (BenchStack stack = BenchStack.up(database, repo, out)) {
                md.append("### ").append(database).append("\n\n").append(SearchBenchmark.measure(stack).markdown()).append("\n");
            }
            Files.writeString(out.resolve("search.md"), md.toString());
        }
        System.out.println();
        System.out.println(md);
        System.exit(0);
    }

    private Map<String, Object> settings() {
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("step_phase_runs", runs);
        settings.put("end_to_end_runs", endToEndRuns);
        settings.put("relay_messages", relayMessages);
        settings.put("long_run_steps", longSteps);
        settings.put("clients", clients);
        settings.put("raw_broker_seconds", rawDuration.toSeconds());
        settings.put("cores", Runtime.getRuntime().availableProcessors());
        return settings;
    }

    private BenchReport.Database measure(BenchStack stack) throws Exception {
        BenchReport.Database result = new BenchReport.Database(stack.database);
        result.rawBrokerMsgsPerS = quick ? 0 : rawBroker(stack);

        result.relay = relay(stack, Relay.XA);
        result.plainRelay = relay(stack, Relay.PLAIN);
        if (spike) {
            result.xaLedgerRelay = relay(stack, Relay.XA_LEDGER);
            result.idempotentLedgerRelay = relay(stack, Relay.IDEMPOTENT_LEDGER);
        }

        log("[%s] Lazarus: warm-up, then %d runs (%d steps) from a paused first queue", stack.database, runs, runs * STEPS_PER_RUN);
        steps(stack, Math.max(100, runs / 10), null);
        if (profile) {
            stack.startRecording("steps");
        }
        result.steps = steps(stack, runs, result);
        if (profile) {
            stack.stopRecording("steps");
        }
        log("[%s] Lazarus: %.0f steps/s, CPU per step: %.2f ms WildFly + %.2f ms PostgreSQL + %.2f ms broker (+ %.2f ms the demo's"
                        + " document service); ratio to the relay %.2f, to the non-transacted relay %.2f; batch submission %.0f runs/s",
                stack.database, result.steps.perSecond(), result.steps.cpuMillisPerUnit(), result.steps.databaseCpuMillisPerUnit(),
                result.steps.brokerCpuMillisPerUnit(), result.documentServiceCpuMillisPerStep, result.ratioToRelay(),
                result.ratioToPlainRelay(), result.batchSubmission.perSecond());
        result.singleSubmissions = singleSubmissions(stack, Math.max(200, endToEndRuns / 2));
        log("[%s] single submissions (POST /api/runs, %d clients, nothing consumed meanwhile): %.0f runs/s, CPU per submission:"
                        + " %.2f ms WildFly + %.2f ms PostgreSQL + %.2f ms broker; %.2f steps' worth of CPU", stack.database, clients,
                result.singleSubmissions.perSecond(), result.singleSubmissions.cpuMillisPerUnit(),
                result.singleSubmissions.databaseCpuMillisPerUnit(), result.singleSubmissions.brokerCpuMillisPerUnit(),
                result.submissionToStepCpu());
        if (quick) {
            return result;
        }

        log("[%s] end to end: %d runs submitted by %d clients while the steps run", stack.database, endToEndRuns, clients);
        result.endToEnd = endToEnd(stack, endToEndRuns);
        log("[%s] end to end: %.0f runs/s (submissions alone %.0f runs/s)", stack.database, result.endToEnd.runsPerS(),
                result.endToEnd.submittedPerS());

        result.latency = latency(stack, Math.max(1, result.steps.perSecond() / STEPS_PER_RUN / 2));
        result.deadLetterVisibleMillis = deadLetterVisibility(stack);
        result.longRun = longRun(stack, (longSteps + STEPS_PER_RUN - 1) / STEPS_PER_RUN);
        result.idleCpuPercent = idleCpu(stack, Duration.ofSeconds(20));
        log("[%s] idle: WildFly used %.1f %% of a core over 20 s", stack.database, result.idleCpuPercent);
        // last: its million runs would weigh on every phase after it
        result.search = SearchBenchmark.measure(stack);
        return result;
    }

    // ---- the raw broker ----

    private double rawBroker(BenchStack stack) throws Exception {
        log("[%s] raw broker: artemis perf client, persistent, 100 in flight, %d s", stack.database, rawDuration.toSeconds());
        stack.broker.createQueue("bench.raw");
        // the client's duration includes its warm-up; only the seconds after it count
        String output = stack.perfClient(rawDuration, Duration.ofSeconds(Math.min(5, rawDuration.toSeconds() / 3)), "bench.raw");
        double rate = PerfClientOutput.sentPerSecond(output);
        log("[%s] raw broker: %.0f msg/s", stack.database, rate);
        stack.broker.removeAllMessages("bench.raw");
        return rate;
    }

    // ---- the relays ----

    /** A relay the benchmark measures: three hops from {@code first}, ending in {@code done}. */
    enum Relay {
        XA("bare XA relay", RelayHop.FIRST, RelayHop.DONE, false),
        PLAIN("non-transacted relay", PlainHop.FIRST, PlainHop.DONE, false),
        XA_LEDGER("XA ledger relay (spike)", XaLedgerHop.FIRST, XaLedgerHop.DONE, true),
        IDEMPOTENT_LEDGER("idempotent ledger relay (spike)", IdempotentLedgerHop.FIRST, IdempotentLedgerHop.DONE, true);

        final String label;
        final String first;
        final String done;
        /** Whether its hops keep a record in the database (the messages name items the benchmark adds first). */
        final boolean ledger;

        Relay(String label, String first, String done, boolean ledger) {
            this.label = label;
            this.first = first;
            this.done = done;
            this.ledger = ledger;
        }
    }

    /** A warm-up of a tenth, then {@code bench.relay.messages} messages through the relay's three hops. */
    private BenchReport.Rate relay(BenchStack stack, Relay relay) throws Exception {
        log("[%s] %s: warm-up, then %d messages through 3 hops", stack.database, relay.label, relayMessages);
        relay(stack, relay, Math.max(500, relayMessages / 10));
        BenchReport.Rate rate = relay(stack, relay, relayMessages);
        log("[%s] %s: %.0f hops/s, CPU per hop: %.2f ms WildFly + %.2f ms PostgreSQL + %.2f ms broker", stack.database, relay.label,
                rate.perSecond(), rate.cpuMillisPerUnit(), rate.databaseCpuMillisPerUnit(), rate.brokerCpuMillisPerUnit());
        return rate;
    }

    private BenchReport.Rate relay(BenchStack stack, Relay relay, int messages) throws Exception {
        stack.broker.removeAllMessages(relay.done);
        stack.broker.pause(relay.first);
        List<java.util.UUID> items = relay.ledger ? stack.ledgerItems(messages) : List.of();
        stack.broker.sendMany(relay.first, messages, i -> relay.ledger ? items.get(i) + ":0" : "{\"n\":" + i + "}");
        long cpu = stack.wildflyCpuMillis();
        long databaseCpu = stack.databaseCpuMillis();
        long brokerCpu = stack.brokerCpuMillis();
        Instant start = Instant.now();
        stack.broker.resume(relay.first);
        Progress progress = new Progress("the " + relay.label + "'s messages through 3 hops", stack);
        for (long done = 0; done < messages; done = stack.broker.messageCount(relay.done)) {
            progress.check(done, messages);
            Thread.sleep(100);
        }
        Duration took = Duration.between(start, Instant.now());
        return new BenchReport.Rate(messages * 3L, took, stack.wildflyCpuMillis() - cpu, stack.databaseCpuMillis() - databaseCpu,
                stack.brokerCpuMillis() - brokerCpu);
    }

    // ---- Lazarus ----

    /**
     * Step throughput: runs submitted in batches ({@code POST /api/runs/batch}, {@value #BATCH} runs each, two clients;
     * timed: the batch submission rate) while the first queue is paused, then timed from resume to the last completion.
     */
    private BenchReport.Rate steps(BenchStack stack, int count, BenchReport.Database result) throws Exception {
        int before = count(stack.viewer, "COMPLETED");
        stack.broker.pause(FIRST_STEP_QUEUE);
        try {
            long submitCpu = stack.wildflyCpuMillis();
            Instant submitStart = Instant.now();
            submitBatches(stack.operator, count);
            if (result != null) {
                result.batchSubmission = new BenchReport.Rate(count, Duration.between(submitStart, Instant.now()),
                        stack.wildflyCpuMillis() - submitCpu, 0);
            }
        } finally {
            stack.broker.resume(FIRST_STEP_QUEUE);
        }
        long cpu = stack.wildflyCpuMillis();
        long databaseCpu = stack.databaseCpuMillis();
        long brokerCpu = stack.brokerCpuMillis();
        long documentsCpu = stack.documentServiceCpuMillis();
        Instant start = Instant.now();
        awaitCompleted(stack, before + count, start.plus(PHASE_TIMEOUT));
        if (result != null) {
            result.documentServiceCpuMillisPerStep = (stack.documentServiceCpuMillis() - documentsCpu) / (double) (count * STEPS_PER_RUN);
        }
        Duration took = Duration.between(start, Instant.now());
        return new BenchReport.Rate((long) count * STEPS_PER_RUN, took, stack.wildflyCpuMillis() - cpu,
                stack.databaseCpuMillis() - databaseCpu, stack.brokerCpuMillis() - brokerCpu);
    }

    /**
     * What one submission costs: {@code count} single {@code POST /api/runs} (after a warm-up of a tenth) by the
     * benchmark's clients, each with an Idempotency-Key, while the first step queue is paused (so the CPU measured is
     * the submissions' alone); then the queue is resumed and the runs completed, out of the measurement.
     */
    private BenchReport.Rate singleSubmissions(BenchStack stack, int count) throws Exception {
        int before = count(stack.viewer, "COMPLETED");
        stack.broker.pause(FIRST_STEP_QUEUE);
        BenchReport.Rate rate;
        try {
            submit(stack.operator, Math.max(20, count / 10), i -> quickPayload());
            if (profile) {
                stack.startRecording("submissions");
            }
            long cpu = stack.wildflyCpuMillis();
            long databaseCpu = stack.databaseCpuMillis();
            long brokerCpu = stack.brokerCpuMillis();
            Instant start = Instant.now();
            submit(stack.operator, count, i -> quickPayload());
            rate = new BenchReport.Rate(count, Duration.between(start, Instant.now()), stack.wildflyCpuMillis() - cpu,
                    stack.databaseCpuMillis() - databaseCpu, stack.brokerCpuMillis() - brokerCpu);
            if (profile) {
                stack.stopRecording("submissions");
            }
        } finally {
            stack.broker.resume(FIRST_STEP_QUEUE);
        }
        awaitCompleted(stack, before + count + Math.max(20, count / 10), Instant.now().plus(PHASE_TIMEOUT));
        return rate;
    }

    private BenchReport.EndToEnd endToEnd(BenchStack stack, int count) throws Exception {
        int before = count(stack.viewer, "COMPLETED");
        Instant start = Instant.now();
        submit(stack.operator, count, i -> quickPayload());
        Duration submitting = Duration.between(start, Instant.now());
        awaitCompleted(stack, before + count, start.plus(PHASE_TIMEOUT));
        return new BenchReport.EndToEnd(count, submitting, Duration.between(start, Instant.now()));
    }

    /**
     * Latency at half the measured capacity (so it is the path's latency, not a queue's): runs submitted at a steady
     * rate for 20 s, then each one's step and end-to-end times read from the API. A step's latency is from its
     * dispatch (the previous step's completion, or the run's creation) to its completion: queueing included.
     */
    private Map<String, BenchReport.Percentiles> latency(BenchStack stack, double runsPerSecond) throws Exception {
        int count = (int) Math.max(100, Math.min(2_000, runsPerSecond * 20));
        log("[%s] latency: %d runs at %.1f runs/s (half the measured capacity)", stack.database, count, runsPerSecond);
        int before = count(stack.viewer, "COMPLETED");
        List<String> ids = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pacer = Executors.newFixedThreadPool(4);
        long start = System.nanoTime();
        List<Future<?>> sent = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            long at = start + (long) (i * 1e9 / runsPerSecond);
            sent.add(pacer.submit(() -> {
                long wait = at - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                ids.add(stack.operator.startRun(quickPayload()));
                return null;
            }));
        }
        for (Future<?> f : sent) {
            f.get();
        }
        pacer.shutdown();
        awaitCompleted(stack, before + count, Instant.now().plus(PHASE_TIMEOUT));
        Map<String, List<Double>> samples = new LinkedHashMap<>();
        for (String id : ids) {
            JsonObject run = stack.viewer.run(id);
            Instant previous = Instant.parse(run.getString("createdAt"));
            for (JsonValue value : run.getJsonArray("steps")) {
                JsonObject step = value.asJsonObject();
                Instant finished = Instant.parse(step.getString("finishedAt"));
                samples.computeIfAbsent(step.getString("step"), s -> new ArrayList<>()).add(millis(previous, finished));
                previous = finished;
            }
            samples.computeIfAbsent("end_to_end", s -> new ArrayList<>())
                    .add(millis(Instant.parse(run.getString("createdAt")), Instant.parse(run.getString("finishedAt"))));
        }
        Map<String, BenchReport.Percentiles> result = new LinkedHashMap<>();
        samples.forEach((name, values) -> result.put(name, BenchReport.Percentiles.of(values)));
        log("[%s] latency end to end: %s", stack.database, result.get("end_to_end"));
        return result;
    }

    /**
     * From a step's final failed delivery to its dead letter being visible over the API: runs that fail their first
     * step for good (a declared permanent failure: the first delivery is the final one; and a failure on every
     * attempt: the last retry is), each watched by a client polling the run every 20 ms.
     */
    private BenchReport.Percentiles deadLetterVisibility(BenchStack stack) throws Exception {
        log("[%s] dead-letter visibility: 10 runs failing for good at once, 5 after their retries", stack.database);
        List<String> payloads = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            payloads.add("{\"url\":\"https://bench.example.org/broken-" + sequence.incrementAndGet() + ".pdf\",\"failures\":{\"fetch\":{\"mode\":\"permanent\"}}}");
        }
        for (int i = 0; i < 5; i++) {
            payloads.add("{\"url\":\"https://bench.example.org/flaky-" + sequence.incrementAndGet() + ".html\",\"failures\":{\"fetch\":{\"mode\":\"always\"}}}");
        }
        stack.expectedDeadLetters += payloads.size();
        ExecutorService watchers = Executors.newFixedThreadPool(payloads.size());
        List<Future<Double>> waits = new ArrayList<>();
        for (String payload : payloads) {
            waits.add(watchers.submit(() -> {
                String id = stack.operator.startRun(payload);
                Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
                while (true) {
                    JsonObject run = stack.viewer.run(id);
                    if (run.getBoolean("deadLettered")) {
                        Instant seen = Instant.now();
                        JsonObject fetch = run.getJsonArray("steps").getJsonObject(0);
                        return millis(Instant.parse(fetch.getString("lastAttemptAt")), seen);
                    }
                    if (Instant.now().isAfter(deadline)) {
                        throw new IllegalStateException("run " + id + " was not dead-lettered within 2 minutes: " + run);
                    }
                    Thread.sleep(20);
                }
            }));
        }
        List<Double> values = new ArrayList<>();
        for (Future<Double> wait : waits) {
            values.add(wait.get());
        }
        watchers.shutdown();
        BenchReport.Percentiles result = BenchReport.Percentiles.of(values);
        log("[%s] dead letter visible after the final failed delivery: %s", stack.database, result);
        return result;
    }

    /**
     * Many runs submitted continuously (batches of {@value #LONG_RUN_BATCH}, keeping about {@value #LONG_RUN_LIVE} runs
     * live: the pipeline stays full, and no run waits long enough to be swept), with throughput and the database's
     * size recorded every 10 s: does the cost stay flat as the tables grow?
     */
    private BenchReport.LongRun longRun(BenchStack stack, int count) throws Exception {
        log("[%s] long run: %d runs (%d steps), throughput and database size every 10 s", stack.database, count, count * STEPS_PER_RUN);
        int before = count(stack.viewer, "COMPLETED");
        long bytesBefore = stack.databaseBytes();
        AtomicInteger completed = new AtomicInteger();
        ExecutorService submitter = Executors.newSingleThreadExecutor();
        Future<?> submitting = submitter.submit(() -> {
            for (int from = 0; from < count; from += LONG_RUN_BATCH) {
                while (from - completed.get() > LONG_RUN_LIVE) {
                    Thread.sleep(20);
                }
                postBatch(stack.operator, Math.min(LONG_RUN_BATCH, count - from));
            }
            return null;
        });
        submitter.shutdown();
        BenchReport.LongRun result = new BenchReport.LongRun(count * (long) STEPS_PER_RUN);
        Instant start = Instant.now();
        Instant deadline = start.plus(Duration.ofHours(2));
        Instant nextWindow = start.plusSeconds(10);
        int lastCompleted = 0;
        Instant lastAt = start;
        while (completed.get() < count) {
            Thread.sleep(1_000);
            completed.set(count(stack.viewer, "COMPLETED") - before); // what the submitter keeps the live runs by
            Instant now = Instant.now();
            if (now.isBefore(nextWindow) && completed.get() < count) {
                continue;
            }
            double stepsPerS = (completed.get() - lastCompleted) * (double) STEPS_PER_RUN / (Duration.between(lastAt, now).toMillis() / 1000.0);
            long bytes = stack.databaseBytes();
            result.windows.add(new BenchReport.Window(Duration.between(start, now).toMillis() / 1000.0, stepsPerS, completed.get(), bytes));
            log("[%s] long run: %d/%d runs, %.0f steps/s over the last window, database %d MB", stack.database, completed.get(), count,
                    stepsPerS, bytes >> 20);
            lastCompleted = completed.get();
            lastAt = now;
            nextWindow = now.plusSeconds(10);
            if (now.isAfter(deadline)) {
                throw new IllegalStateException("the long run did not finish within 2 hours");
            }
            if (submitting.isDone()) {
                submitting.get(); // a refused batch ends the run here, not at the deadline
            }
        }
        submitting.get();
        result.took = Duration.between(start, Instant.now());
        result.bytesPerRun = (stack.databaseBytes() - bytesBefore) / (double) count;
        return result;
    }

    private double idleCpu(BenchStack stack, Duration over) throws InterruptedException {
        long cpu = stack.wildflyCpuMillis();
        Thread.sleep(over.toMillis());
        return (stack.wildflyCpuMillis() - cpu) * 100.0 / over.toMillis();
    }

    // ---- helpers ----

    private String quickPayload() {
        return "{\"url\":\"https://bench.example.org/doc-" + sequence.incrementAndGet() + ".html\"}";
    }

    /** Submits {@code count} runs with the benchmark's clients, in parallel; returns when all were accepted. */
    private void submit(Api api, int count, IntFunction<String> payload) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        AtomicInteger next = new AtomicInteger();
        List<Future<?>> work = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            work.add(pool.submit(() -> {
                for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                    submitWithRetry(api, payload.apply(i));
                }
                return null;
            }));
        }
        for (Future<?> f : work) {
            f.get();
        }
        pool.shutdown();
    }

    /** Submits {@code count} runs in batches of {@value #BATCH} from two clients; returns when all were accepted. */
    private void submitBatches(Api api, int count) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        AtomicInteger next = new AtomicInteger();
        List<Future<?>> work = new ArrayList<>();
        for (int c = 0; c < 2; c++) {
            work.add(pool.submit(() -> {
                for (int from = next.getAndAdd(BATCH); from < count; from = next.getAndAdd(BATCH)) {
                    postBatch(api, Math.min(BATCH, count - from));
                }
                return null;
            }));
        }
        for (Future<?> f : work) {
            f.get();
        }
        pool.shutdown();
    }

    /** One {@code POST /api/runs/batch} of {@code size} quick runs; fails on anything but 201. */
    private void postBatch(Api api, int size) {
        StringBuilder body = new StringBuilder("{\"runs\":[");
        for (int i = 0; i < size; i++) {
            body.append(i > 0 ? "," : "").append("{\"pipeline\":\"").append(PIPELINE).append("\",\"payload\":")
                    .append(quickPayload()).append('}');
        }
        Api.Response response = api.post("api/runs/batch", body.append("]}").toString());
        if (response.status() != 201) {
            throw new IllegalStateException("a batch was refused: " + response);
        }
    }

    /** A submission, tried again (with the same Idempotency-Key) if the server is briefly unable to take it. */
    private static void submitWithRetry(Api api, String payload) throws InterruptedException {
        String key = "bench-" + java.util.UUID.randomUUID();
        String body = "{\"pipeline\":\"" + PIPELINE + "\",\"payload\":" + payload + "}";
        for (int attempt = 1; ; attempt++) {
            Api.Response response = api.post("api/runs", body, "Idempotency-Key", key);
            if (response.status() == 201 || response.status() == 200) {
                return;
            }
            if (attempt >= 5 || response.status() != 503 && response.status() != 409) {
                throw new IllegalStateException("a submission was refused: " + response);
            }
            Thread.sleep(200L * attempt);
        }
    }

    private static int count(Api viewer, String state) {
        return viewer.get("api/runs?limit=1&state=" + state).ok().json().getInt("total");
    }

    /** Waits until {@code target} runs completed; fails if a run was dead-lettered meanwhile (they all should complete). */
    private static void awaitCompleted(BenchStack stack, int target, Instant deadline) throws InterruptedException {
        Progress progress = new Progress("completed runs", stack);
        long start = System.nanoTime();
        int first = -1;
        for (int completed = 0; completed < target; completed = count(stack.viewer, "COMPLETED")) {
            progress.check(completed, target);
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("runs did not complete in time: " + completed + " of " + target);
            }
            first = first < 0 ? completed : first;
            Thread.sleep(pollInterval(start, first, completed, target));
        }
        int deadLettered = count(stack.viewer, "DEAD_LETTERED");
        if (deadLettered > stack.expectedDeadLetters) {
            throw new IllegalStateException(deadLettered + " runs were dead-lettered, " + stack.expectedDeadLetters
                    + " expected: the figures would not be of the happy path; see the stack's log");
        }
    }

    /**
     * How long to wait before counting again: a tenth of the time the rest should take at the rate so far, between 100 ms
     * and a second. Each count is a request to the server being measured (and a count over the runs in its database):
     * counting every 100 ms throughout would put the measurement's own work into the figures; near the end it still
     * counts every 100 ms, so the phase's end is seen as precisely.
     */
    private static long pollInterval(long startNanos, int first, int completed, int target) {
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        if (completed <= first || seconds <= 0) {
            return 100;
        }
        double rest = (target - completed) / ((completed - first) / seconds);
        return (long) Math.max(100, Math.min(1_000, rest * 100));
    }

    /** Fails a wait that has stopped moving for a minute (a broken stack), instead of waiting out the phase. */
    private static final class Progress {
        private static final Duration STALL = Duration.ofMinutes(1);
        private final String what;
        private final BenchStack stack;
        private long last = -1;
        private Instant since = Instant.now();

        Progress(String what, BenchStack stack) {
            this.what = what;
            this.stack = stack;
        }

        void check(long now, long target) {
            if (now != last) {
                last = now;
                since = Instant.now();
            } else if (Instant.now().isAfter(since.plus(STALL))) {
                String threads = stack.threadDump("stalled");
                throw new IllegalStateException(what + " stopped at " + now + " of " + target + " for " + STALL.toSeconds()
                        + " s: see the stack's log, target/bench/stack/wildfly/log/server.log, and WildFly's threads, " + threads);
            }
        }
    }

    private static double millis(Instant from, Instant to) {
        return Duration.between(from, to).toNanos() / 1e6;
    }

    static void log(String format, Object... args) {
        System.out.printf("[bench %s] %s%n", LocalTime.now().truncatedTo(ChronoUnit.SECONDS), String.format(format, args));
    }
}
