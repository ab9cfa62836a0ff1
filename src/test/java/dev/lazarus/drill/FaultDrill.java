package dev.lazarus.drill;

import static dev.lazarus.drill.DemoStack.log;

import dev.lazarus.it.Api;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A fault drill: many runs of mixed shape ({@link RunShape}) submitted to the running demo stack while a
 * {@link Fault} strikes at random moments and is mended, then every run is checked against what its shape must
 * end as. It prints a summary table, writes {@code target/drill/<name>.json}, and exits non-zero if a run was
 * lost, dead-lettered falsely or with the wrong reason, a step's effect was committed twice for one dispatch,
 * or a submission created a run the drill does not know of (retries carry an Idempotency-Key, so none may). See src/site/markdown/drills.md.
 *
 * <p>System properties: {@code drill.runs}, {@code drill.faults} (how many times the fault strikes),
 * {@code drill.outage} (ISO-8601 duration between breaking and mending), {@code drill.seed}, {@code drill.timeout}.
 */
final class FaultDrill {

    private static final int CLIENTS = 8;

    /** What a drill checks once its runs are accounted for (the topology drill's dead letters on both brokers). */
    interface Afterwards {
        /** @return what is wrong, empty if nothing */
        List<String> check(DemoStack stack, Map<String, RunShape> runs) throws Exception;
    }

    private final Fault fault;
    private final DemoStack stack = new DemoStack();
    private Afterwards afterwards;
    private final Random random;
    private final long seed;

    private FaultDrill(Fault fault, long seed) {
        this.fault = fault;
        this.seed = seed;
        this.random = new Random(seed);
    }

    /** Runs the drill with the given defaults (overridden by system properties) and exits with its verdict. */
    static void main(Fault fault, int defaultRuns, int defaultFaults) throws Exception {
        main(fault, defaultRuns, defaultFaults, null);
    }

    static void main(Fault fault, int defaultRuns, int defaultFaults, Afterwards afterwards) throws Exception {
        int runs = Integer.getInteger("drill.runs", defaultRuns);
        int faults = Integer.getInteger("drill.faults", Integer.getInteger("drill.kills", defaultFaults));
        Duration outage = Duration.parse(System.getProperty("drill.outage", fault.defaultOutage.toString()));
        long seed = Long.getLong("drill.seed", System.nanoTime());
        Duration timeout = Duration.parse(System.getProperty("drill.timeout", "PT30M"));
        FaultDrill drill = new FaultDrill(fault, seed);
        drill.afterwards = afterwards;
        System.exit(drill.drill(runs, faults, outage, timeout));
    }

    private int drill(int count, int faults, Duration outage, Duration timeout) throws Exception {
        Instant started = Instant.now();
        log("%s drill: %d runs, %s %d times (outage %d s), seed %d", fault.drill, count, fault.description, faults,
                outage.toSeconds(), seed);
        int effectsBefore = stack.effects().getInt("duplicateEffects");
        int runsBefore = stack.totalRuns();
        Submissions submissions = submitWhileFaulting(count, faults, outage);
        log("submitted %d runs in %d s", submissions.runs.size(), Duration.between(started, Instant.now()).toSeconds());

        stack.awaitQuiet(started.plus(timeout));
        RunAccounting.Result result = RunAccounting.check(stack.viewer, submissions.runs);
        JsonObject effects = stack.effects();
        int duplicates = effects.getInt("duplicateEffects") - effectsBefore;
        int phantoms = stack.totalRuns() - runsBefore - submissions.runs.size();
        Duration took = Duration.between(started, Instant.now());

        print(result, duplicates, phantoms, submissions, took, count);
        write(result, duplicates, phantoms, effects, submissions, took, count, faults, outage);
        boolean failed = result.lost() > 0 || result.falseDeadLetters() > 0 || result.wrongEnds() > 0 || duplicates > 0
                || phantoms != 0 || submissions.faultLog.size() < faults
                || submissions.runs.size() < count;
        log(failed ? "FAILED: see the table" : "passed: nothing lost, doubled or falsely dead-lettered");
        if (!failed && afterwards != null) {
            List<String> problems = afterwards.check(stack, submissions.runs);
            problems.forEach(problem -> log("FAILED: %s", problem));
            failed = !problems.isEmpty();
        }
        return failed ? 1 : 0;
    }

    /** What the clients submitted, and what happened to the stack meanwhile. */
    private static final class Submissions {
        final Map<String, RunShape> runs = new ConcurrentHashMap<>();
        final Map<String, Integer> refusals = Collections.synchronizedMap(new TreeMap<>());
        /** Retries answered with the run an earlier, unanswered attempt had created. */
        final AtomicInteger replayed = new AtomicInteger();
        final List<String> faultLog = new ArrayList<>();
    }

    /**
     * Submits the runs with {@value #CLIENTS} clients while, at random points of the submission, the fault
     * strikes and is mended: the moments when most runs are in flight. A refused submission is counted by its
     * answer and tried again a second later, so every run of the drill is eventually created, and the drill
     * knows each run it counts was created.
     */
    private Submissions submitWhileFaulting(int count, int faults, Duration outage) throws Exception {
        Submissions result = new Submissions();
        List<RunShape> shapes = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            shapes.add(RunShape.pick(random));
        }
        List<Integer> faultAt = new ArrayList<>();
        int slice = Math.max(1, count * 9 / 10 / Math.max(1, faults));
        for (int i = 0; i < faults; i++) {
            // somewhere in each of `faults` equal slices of the first 90 % of the submissions
            faultAt.add(i * slice + slice / 4 + random.nextInt(Math.max(1, slice / 2)));
        }
        ReadWriteLock serverUp = new ReentrantReadWriteLock();
        AtomicInteger submitted = new AtomicInteger();
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        for (RunShape shape : shapes) {
            clients.submit(() -> {
                try {
                    submitUntilAccepted(shape, serverUp, result);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    submitted.incrementAndGet();
                }
            });
        }
        clients.shutdown();
        for (int i = 0; i < faultAt.size(); i++) {
            while (submitted.get() < faultAt.get(i) && !clients.isTerminated()) {
                Thread.sleep(20);
            }
            if (fault.holdsSubmissions) {
                serverUp.writeLock().lock();
            }
            try {
                int live = stack.liveRuns();
                int completed = completed();
                fault.inject(stack);
                Instant broken = Instant.now();
                Thread.sleep(outage.toMillis());
                fault.mend(stack);
                stack.awaitApi(Duration.ofMinutes(5));
                Duration apiBack = Duration.between(broken, Instant.now());
                Duration progress = awaitProgress(completed, broken);
                String line = String.format("%s %d: after %d submissions, %d runs live; API answering %d s after the fault, "
                                + "runs completing again %s", fault.drill, i + 1, submitted.get(), live, apiBack.toSeconds(),
                        progress == null ? "(nothing left to complete)" : progress.toSeconds() + " s after the fault");
                result.faultLog.add(line);
                log(line);
            } finally {
                if (fault.holdsSubmissions) {
                    serverUp.writeLock().unlock();
                }
            }
        }
        clients.awaitTermination(1, TimeUnit.HOURS);
        if (!result.refusals.isEmpty()) {
            log("refused submissions (tried again until accepted): %s", result.refusals);
        }
        return result;
    }

    /**
     * Submits one run, trying again a second after each refusal or missing answer under the same
     * Idempotency-Key: a retry of a submission the server did carry out answers 200 with that run, so no
     * retry starts a second run.
     */
    private void submitUntilAccepted(RunShape shape, ReadWriteLock serverUp, Submissions result) throws InterruptedException {
        String key = UUID.randomUUID().toString();
        String body = "{\"pipeline\":\"document-ingestion\",\"payload\":" + shape.payload + "}";
        Instant giveUp = Instant.now().plus(Duration.ofMinutes(10));
        while (Instant.now().isBefore(giveUp)) {
            serverUp.readLock().lock();
            try {
                Api.Response created = stack.operator.post("api/runs", body, "Idempotency-Key", key);
                if (created.status() == 201 || created.status() == 200) {
                    result.runs.put(created.json().getString("id"), shape);
                    if (created.status() == 200) {
                        result.replayed.incrementAndGet();
                    }
                    return;
                }
                boolean problem = created.contentType().startsWith("application/problem+json");
                result.refusals.merge(created.status() + (problem ? " problem+json" : " " + created.contentType()), 1, Integer::sum);
            } catch (RuntimeException noAnswer) {
                // the server did not answer (killed, or the request timed out): a run may or may not exist
                result.refusals.merge("no answer", 1, Integer::sum);
            } finally {
                serverUp.readLock().unlock();
            }
            Thread.sleep(1_000);
        }
    }

    private int completed() {
        try {
            return stack.viewer.get("api/runs?limit=1&state=COMPLETED").ok().json().getInt("total");
        } catch (RuntimeException | AssertionError down) {
            return -1;
        }
    }

    /** How long after the fault runs complete again; null if nothing was left to complete. */
    private Duration awaitProgress(int completedBefore, Instant broken) throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofMinutes(5));
        while (Instant.now().isBefore(deadline)) {
            int completed = completed();
            if (completed > completedBefore && completedBefore >= 0) {
                return Duration.between(broken, Instant.now());
            }
            if (stack.liveRuns() == 0) {
                return null;
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("no run completed within 5 minutes of mending the fault: processing did not resume");
    }

    private void print(RunAccounting.Result result, int duplicates, int phantoms, Submissions submissions, Duration took, int count) {
        RunAccounting.printEnds(result);
        System.out.printf("| runs | lost | false dead letters | wrong reason or end | duplicated effects | runs started twice or unknown | faults | time |%n");
        System.out.println("|---|---|---|---|---|---|---|---|");
        System.out.printf("| %d | %d | %d | %d | %d | %d | %d | %d s |%n", count, result.lost(), result.falseDeadLetters(), result.wrongEnds(),
                duplicates, phantoms, submissions.faultLog.size(), took.toSeconds());
        System.out.println();
        System.out.println("dead-lettered by reason: " + result.reasons());
        System.out.println("refused submissions by answer: " + submissions.refusals + "; retries answered with the run an earlier"
                + " attempt created: " + submissions.replayed.get());
        submissions.faultLog.forEach(System.out::println);
        result.examples().forEach(e -> System.out.println("  ! " + e));
        System.out.println();
    }

    private void write(RunAccounting.Result result, int duplicates, int phantoms, JsonObject effects, Submissions submissions,
                       Duration took, int count, int faults, Duration outage) throws IOException {
        var refusals = Json.createObjectBuilder();
        new HashMap<>(submissions.refusals).forEach(refusals::add);
        JsonObject json = Json.createObjectBuilder()
                .add("drill", fault.drill).add("fault", fault.description)
                .add("runs", count).add("faults", faults).add("outageSeconds", outage.toSeconds())
                .add("seed", seed).add("seconds", took.toSeconds())
                .add("lost", result.lost()).add("falseDeadLetters", result.falseDeadLetters()).add("wrongEnds", result.wrongEnds())
                .add("duplicatedEffects", duplicates).add("unknownRuns", phantoms)
                .add("retriesAnsweredWithAnEarlierRun", submissions.replayed.get()).add("refusedSubmissions", refusals)
                .add("effects", effects)
                .add("ends", RunAccounting.endsJson(result)).add("deadLetteredByReason", RunAccounting.reasonsJson(result))
                .add("faultLog", Json.createArrayBuilder(submissions.faultLog))
                .add("examples", Json.createArrayBuilder(result.examples()))
                .build();
        Path out = stack.repo.resolve("target/drill/" + fault.drill + ".json");
        Files.createDirectories(out.getParent());
        Files.writeString(out, json.toString());
        log("wrote %s", stack.repo.relativize(out));
    }
}
