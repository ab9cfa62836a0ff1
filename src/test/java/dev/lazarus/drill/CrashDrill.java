package dev.lazarus.drill;

import dev.lazarus.it.Api;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The crash drill: many runs of mixed shape on the running demo stack, WildFly killed with {@code kill -9} at
 * random moments while they are processed and started again with its state, then every run is checked
 * against what its shape must end as. It prints a summary table, writes {@code target/drill/crash.json}, and
 * exits non-zero if a run was lost, dead-lettered falsely or with the wrong reason, or a step's effect was
 * committed twice for one dispatch.
 *
 * <pre>
 * mvn -Pdemo package                                       # the stack (H2; -Dlazarus.db=postgresql for PostgreSQL)
 * mvn -Pdrill-crash test-compile exec:java                 # 10 000 runs, 3 kills
 * mvn -Pdrill-crash test-compile exec:java -Ddrill.runs=300 -Ddrill.kills=1   # the short version CI runs
 * </pre>
 */
public final class CrashDrill {

    /** What a run is asked to do, and how it must end. */
    enum Shape {
        QUICK(65, "{}", "COMPLETED", null),
        SLOW(5, "{\"failures\":{\"parse\":{\"mode\":\"hang\",\"seconds\":1}}}", "COMPLETED", null),
        TRANSIENT(20, "{\"failures\":{\"fetch\":{\"mode\":\"transient\",\"succeedOnAttempt\":3}}}", "COMPLETED", null),
        POISON(5, "{\"failures\":{\"parse\":{\"mode\":\"always\"}}}", "DEAD_LETTERED", "RETRIES_EXHAUSTED"),
        PERMANENT(5, "{\"failures\":{\"index\":{\"mode\":\"permanent\"}}}", "DEAD_LETTERED", "NON_RETRYABLE");

        final int percent;
        final String payload;
        final String end;
        final String reason;

        Shape(int percent, String payload, String end, String reason) {
            this.percent = percent;
            this.payload = payload;
            this.end = end;
            this.reason = reason;
        }

        static Shape pick(Random random) {
            int roll = random.nextInt(100);
            for (Shape shape : values()) {
                roll -= shape.percent;
                if (roll < 0) {
                    return shape;
                }
            }
            return QUICK;
        }
    }

    private final Api operator;
    private final Api viewer;
    private final Path repo = Path.of(System.getProperty("drill.repo", ".")).toAbsolutePath();
    private final Random random;

    private CrashDrill(URL base, long seed) {
        this.operator = new Api(base, "operator", "operator-pw");
        this.viewer = new Api(base, "viewer", "viewer-pw");
        this.random = new Random(seed);
    }

    public static void main(String[] args) throws Exception {
        int runs = Integer.getInteger("drill.runs", 10_000);
        int kills = Integer.getInteger("drill.kills", 3);
        long seed = Long.getLong("drill.seed", System.nanoTime());
        Duration timeout = Duration.parse(System.getProperty("drill.timeout", "PT30M"));
        URL base = URI.create(System.getProperty("drill.url", "http://127.0.0.1:8080/lazarus/")).toURL();
        int exit = new CrashDrill(base, seed).drill(runs, kills, timeout, seed);
        System.exit(exit);
    }

    private int drill(int count, int kills, Duration timeout, long seed) throws Exception {
        Instant started = Instant.now();
        log("crash drill: %d runs, %d kills, seed %d", count, kills, seed);
        int effectsBefore = effects().getInt("duplicateEffects");
        List<String> killLog = new ArrayList<>();
        Map<String, Shape> runs = submitWhileKilling(count, kills, killLog);
        log("submitted %d runs in %d s", runs.size(), Duration.between(started, Instant.now()).toSeconds());

        Instant deadline = started.plus(timeout);
        while (liveRuns() > 0 && Instant.now().isBefore(deadline)) {
            Thread.sleep(2_000);
        }
        Result result = check(runs);
        JsonObject effects = effects();
        int duplicates = effects.getInt("duplicateEffects") - effectsBefore;
        Duration took = Duration.between(started, Instant.now());
        print(result, duplicates, killLog, took, count);
        write(result, duplicates, effects, killLog, took, count, kills, seed);
        boolean failed = result.lost > 0 || result.falseDeadLetters > 0 || result.wrongEnds > 0 || duplicates > 0
                || killLog.size() < kills;
        log(failed ? "FAILED: see the table" : "passed: nothing lost, doubled or falsely dead-lettered");
        return failed ? 1 : 0;
    }

    /**
     * Submits the runs with 8 clients while, at random points of the submission, WildFly is killed and started
     * again: the moments when most runs are in flight. A kill waits for the submissions under way to be answered
     * (and holds new ones back until the API is back), so every run the drill counts is one it knows was created.
     */
    private Map<String, Shape> submitWhileKilling(int count, int kills, List<String> killLog) throws Exception {
        Map<String, Shape> runs = new ConcurrentHashMap<>();
        List<Shape> shapes = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            shapes.add(Shape.pick(random));
        }
        List<Integer> killAt = new ArrayList<>();
        int slice = Math.max(1, count * 9 / 10 / Math.max(1, kills));
        for (int kill = 0; kill < kills; kill++) {
            // somewhere in each of `kills` equal slices of the first 90 % of the submissions
            killAt.add(kill * slice + slice / 4 + random.nextInt(Math.max(1, slice / 2)));
        }
        ReadWriteLock serverUp = new ReentrantReadWriteLock();
        AtomicInteger submitted = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        ExecutorService clients = Executors.newFixedThreadPool(8);
        for (Shape shape : shapes) {
            clients.submit(() -> {
                serverUp.readLock().lock();
                try {
                    runs.put(operator.startRun(shape.payload), shape);
                } catch (RuntimeException | AssertionError e) {
                    refused.incrementAndGet();
                } finally {
                    serverUp.readLock().unlock();
                    submitted.incrementAndGet();
                }
            });
        }
        clients.shutdown();
        for (int kill = 0; kill < killAt.size(); kill++) {
            while (submitted.get() < killAt.get(kill) && !clients.isTerminated()) {
                Thread.sleep(20);
            }
            serverUp.writeLock().lock();
            try {
                int live = liveRuns();
                stack("demo-kill");
                Instant killed = Instant.now();
                stack("demo-restart");
                awaitApi(Duration.ofMinutes(3));
                String line = String.format("kill %d: after %d submissions, %d runs live; API back after %d s", kill + 1,
                        submitted.get(), live, Duration.between(killed, Instant.now()).toSeconds());
                killLog.add(line);
                log(line);
            } finally {
                serverUp.writeLock().unlock();
            }
        }
        clients.awaitTermination(1, TimeUnit.HOURS);
        if (refused.get() > 0) {
            log("%d submissions were refused: they are not part of the drill", refused.get());
        }
        return runs;
    }

    /** Live runs on the stack (every run, the drill's and others'); 0 when nothing is left to do. */
    private int liveRuns() {
        int live = 0;
        for (String state : List.of("PENDING", "IN_PROGRESS", "RETRYING")) {
            try {
                live += viewer.get("api/runs?limit=1&state=" + state).ok().json().getInt("total");
            } catch (RuntimeException | AssertionError down) {
                return Integer.MAX_VALUE;
            }
        }
        return live;
    }

    private void awaitApi(Duration timeout) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        while (Instant.now().isBefore(deadline)) {
            try {
                if (viewer.get("api/runs?limit=1").status() == 200) {
                    return;
                }
            } catch (RuntimeException notYet) {
                // starting
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException("the API did not come back within " + timeout);
    }

    private JsonObject effects() {
        return viewer.get("api/demo/index-effects").ok().json();
    }

    private record Result(Map<Shape, Map<String, Integer>> ends, Map<String, Integer> reasons, int lost, int falseDeadLetters,
                          int wrongEnds, List<String> examples) {
    }

    /** Every run as it ended, against its shape. */
    private Result check(Map<String, Shape> runs) {
        Map<String, String> states = new HashMap<>();
        for (String state : List.of("COMPLETED", "DEAD_LETTERED", "PENDING", "IN_PROGRESS", "RETRYING")) {
            for (int offset = 0; ; offset += 500) {
                JsonObject page = viewer.get("api/runs?limit=500&state=" + state + "&offset=" + offset).ok().json();
                page.getJsonArray("items").forEach(v -> states.put(v.asJsonObject().getString("id"), state));
                if (offset + 500 >= page.getInt("total")) {
                    break;
                }
            }
        }
        Map<Shape, Map<String, Integer>> ends = new EnumMap<>(Shape.class);
        Map<String, Integer> reasons = new TreeMap<>();
        int lost = 0;
        int falseDeadLetters = 0;
        int wrongEnds = 0;
        List<String> examples = new ArrayList<>();
        for (Map.Entry<String, Shape> run : runs.entrySet()) {
            String state = states.getOrDefault(run.getKey(), "MISSING");
            Shape shape = run.getValue();
            ends.computeIfAbsent(shape, s -> new TreeMap<>()).merge(state, 1, Integer::sum);
            if (!state.equals("COMPLETED") && !state.equals("DEAD_LETTERED")) {
                lost++;
                example(examples, run.getKey() + " (" + shape + ") is " + state);
                continue;
            }
            if (state.equals("DEAD_LETTERED")) {
                JsonObject deadLetter = viewer.run(run.getKey()).getJsonObject("deadLetter");
                String reason = deadLetter == null ? "none" : deadLetter.getString("reason");
                reasons.merge(reason, 1, Integer::sum);
                if (shape.reason == null) {
                    falseDeadLetters++;
                    example(examples, run.getKey() + " (" + shape + ") dead-lettered as " + reason + ": "
                            + (deadLetter == null ? "" : deadLetter.getString("errorMessage", "")));
                } else if (!shape.reason.equals(reason)) {
                    wrongEnds++;
                    example(examples, run.getKey() + " (" + shape + ") dead-lettered as " + reason + ", expected " + shape.reason);
                }
            } else if (shape.reason != null) {
                wrongEnds++;
                example(examples, run.getKey() + " (" + shape + ") completed, expected " + shape.reason);
            }
        }
        return new Result(ends, reasons, lost, falseDeadLetters, wrongEnds, examples);
    }

    private static void example(List<String> examples, String text) {
        if (examples.size() < 20) {
            examples.add(text);
        }
    }

    private void print(Result result, int duplicates, List<String> kills, Duration took, int count) {
        System.out.println();
        System.out.println("| shape | runs | completed | dead-lettered | not ended |");
        System.out.println("|---|---|---|---|---|");
        for (Map.Entry<Shape, Map<String, Integer>> shape : result.ends.entrySet()) {
            Map<String, Integer> ends = shape.getValue();
            int total = ends.values().stream().mapToInt(Integer::intValue).sum();
            int completed = ends.getOrDefault("COMPLETED", 0);
            int deadLettered = ends.getOrDefault("DEAD_LETTERED", 0);
            System.out.printf("| %s | %d | %d | %d | %d |%n", shape.getKey(), total, completed, deadLettered, total - completed - deadLettered);
        }
        System.out.println();
        System.out.printf("| runs | lost | false dead letters | wrong reason or end | duplicated effects | kills | time |%n");
        System.out.println("|---|---|---|---|---|---|---|");
        System.out.printf("| %d | %d | %d | %d | %d | %d | %d s |%n", count, result.lost, result.falseDeadLetters, result.wrongEnds, duplicates,
                kills.size(), took.toSeconds());
        System.out.println();
        System.out.println("dead-lettered by reason: " + result.reasons);
        kills.forEach(System.out::println);
        result.examples.forEach(e -> System.out.println("  ! " + e));
        System.out.println();
    }

    private void write(Result result, int duplicates, JsonObject effects, List<String> kills, Duration took, int count, int killCount,
                       long seed) throws IOException {
        var ends = Json.createObjectBuilder();
        result.ends.forEach((shape, byState) -> {
            var states = Json.createObjectBuilder();
            byState.forEach(states::add);
            ends.add(shape.name(), states);
        });
        var reasons = Json.createObjectBuilder();
        result.reasons.forEach(reasons::add);
        JsonObject json = Json.createObjectBuilder()
                .add("runs", count).add("kills", killCount).add("seed", seed).add("seconds", took.toSeconds())
                .add("lost", result.lost).add("falseDeadLetters", result.falseDeadLetters).add("wrongEnds", result.wrongEnds)
                .add("duplicatedEffects", duplicates).add("effects", effects)
                .add("ends", ends).add("deadLetteredByReason", reasons)
                .add("killLog", Json.createArrayBuilder(kills)).add("examples", Json.createArrayBuilder(result.examples))
                .build();
        Path out = repo.resolve("target/drill/crash.json");
        Files.createDirectories(out.getParent());
        Files.writeString(out, json.toString());
        log("wrote %s", repo.relativize(out));
    }

    /** Runs one command of the stack script against the demo stack. */
    private void stack(String command) throws IOException, InterruptedException {
        Path servers = repo.resolve("target/servers");
        Path wildfly;
        try (var found = Files.list(servers)) {
            wildfly = found.filter(p -> p.getFileName().toString().startsWith("wildfly-")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no WildFly under " + servers + ": run mvn -Pdemo package first"));
        }
        ProcessBuilder script = new ProcessBuilder("bash", repo.resolve("wildfly-config/stack.sh").toString(), command).inheritIO();
        script.environment().put("WILDFLY_HOME", wildfly.toString());
        script.environment().put("STACK_DIR", repo.resolve("target/demo").toString());
        script.environment().put("BROKER_PORT", System.getProperty("drill.broker.port", "61616"));
        int exit = script.start().waitFor();
        if (exit != 0) {
            throw new IllegalStateException("stack.sh " + command + " failed (" + exit + ")");
        }
    }

    private static void log(String format, Object... args) {
        System.out.println("[drill] " + String.format(format, args));
    }
}
