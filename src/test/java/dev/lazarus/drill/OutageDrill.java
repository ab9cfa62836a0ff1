package dev.lazarus.drill;

import static dev.lazarus.drill.DemoStack.log;

import dev.lazarus.it.Api;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The outage drill: under a steady load of runs, the stand-in document service the demo's fetch step calls is stopped
 * ({@code stack.sh documents-stop}: fetching fails with a refused connection) for the outage, then started again. Every
 * run must complete; the drill measures how many were dead-lettered meanwhile, how soon the fetch step was held (on
 * every node it watches) and ran again after the service was back, and how long until every waiting run completed.
 * With {@code -Ddrill.hold=off} it switches Lazarus's automatic hold off on every node for the same outage
 * ({@code stack.sh hold off}, back on afterwards), for comparison: then every run that reaches fetch is dead-lettered.
 *
 * <p>It fails (exit 1) if a run was lost (not ended), doubled (a step's effect committed twice, or a run the drill did
 * not start), or, with the hold on, if more than {@code drill.max-dead-letters} runs were dead-lettered or the step
 * did not run again within one cool-down ({@code drill.cool-down-max}) of the service's return. Writes
 * {@code target/drill/outage.json} ({@code outage-hold-off.json}).
 *
 * <pre>
 * mvn -Pdemo package
 * mvn -Pdrill-outage test-compile exec:java      # 50 runs/s, the service down 10 minutes
 * mvn -Pdrill-outage test-compile exec:java -Ddrill.hold=off
 * mvn -Pcluster package; mvn -Pdrill-outage test-compile exec:java -Ddrill.stack-dir=target/cluster \
 *     -Ddrill.nodes=http://127.0.0.1:8080/lazarus/,http://127.0.0.1:8280/lazarus/
 * </pre>
 *
 * <p>System properties: {@code drill.rate} (runs per second, 50), {@code drill.outage} (PT10M), {@code drill.before} (load
 * before the outage, PT30S), {@code drill.after} (load after the service is back, PT1M), {@code drill.hold} (on|off),
 * {@code drill.max-dead-letters} (10), {@code drill.cool-down-max} (PT2M, the server's lazarus.hold.cool-down-max),
 * {@code drill.nodes} (the nodes' API roots: submissions go round them, each is watched), {@code drill.timeout} (PT30M
 * after the load, for every run to end).
 */
public final class OutageDrill {

    private static final String PIPELINE = "document-ingestion";
    private static final String STEP = "fetch";
    private static final int CLIENTS = 16;

    private final DemoStack stack = new DemoStack();
    private final List<Api> nodes = new ArrayList<>();
    private final Map<String, RunShape> runs = new ConcurrentHashMap<>();
    private final Map<String, Integer> refusals = new ConcurrentHashMap<>();
    private final AtomicInteger submitted = new AtomicInteger();
    private final AtomicLong latestSubmissionLagMillis = new AtomicLong();
    /** What the watcher saw: each node's fetch state over time. */
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final AtomicLong mostWaiting = new AtomicLong();

    private record Seen(Instant at, int node, String state) {
    }

    private OutageDrill() {
        String list = System.getProperty("drill.nodes", System.getProperty("drill.url", "http://127.0.0.1:8080/lazarus/"));
        for (String root : list.split(",")) {
            try {
                nodes.add(new Api(URI.create(root.trim()).toURL(), "operator", "operator-pw"));
            } catch (java.net.MalformedURLException e) {
                throw new IllegalArgumentException(root, e);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        System.exit(new OutageDrill().drill());
    }

    private int drill() throws Exception {
        double rate = Double.parseDouble(System.getProperty("drill.rate", "50"));
        Duration outage = Duration.parse(System.getProperty("drill.outage", "PT10M"));
        Duration before = Duration.parse(System.getProperty("drill.before", "PT30S"));
        Duration after = Duration.parse(System.getProperty("drill.after", "PT1M"));
        boolean hold = !"off".equals(System.getProperty("drill.hold", "on"));
        int maxDeadLetters = Integer.getInteger("drill.max-dead-letters", 10);
        Duration coolDownMax = Duration.parse(System.getProperty("drill.cool-down-max", "PT2M"));
        Duration timeout = Duration.parse(System.getProperty("drill.timeout", "PT30M"));
        String name = hold ? "outage" : "outage-hold-off";
        log("%s drill: %.0f runs/s on %d node(s); the document service down %d s after %d s of load, load for %d s after it is"
                + " back; automatic hold %s", name, rate, nodes.size(), outage.toSeconds(), before.toSeconds(), after.toSeconds(),
                hold ? "on" : "OFF");

        stack.stack("documents-start"); // idempotent: a drill that failed before may have left it down
        if (!hold) {
            stack.stack("hold", "off");
            Thread.sleep(12_000); // each node reads its settings again within 10 s
        }
        AtomicBoolean watching = new AtomicBoolean(true);
        Thread watcher = new Thread(() -> watch(watching), "outage-drill-watcher");
        try {
            for (int node = 0; node < nodes.size(); node++) {
                String state = fetchState(node);
                if (!"RUNNING".equals(state)) {
                    log("FAILED: the fetch step is %s on node %d before the drill; resume it first", state, node + 1);
                    return 1;
                }
            }
            int effectsBefore = stack.effects().getInt("duplicateEffects");
            int runsBefore = stack.totalRuns();
            long deadLettersBefore = deadLettersInAll();
            watcher.start();

            Instant started = Instant.now();
            AtomicBoolean loading = new AtomicBoolean(true);
            ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
            Thread pacer = new Thread(() -> pace(rate, loading, clients, started), "outage-drill-pacer");
            pacer.start();

            Thread.sleep(before.toMillis());
            stack.stack("documents-stop");
            Instant down = Instant.now();
            log("document service stopped after %d submissions", submitted.get());
            Thread.sleep(outage.toMillis());
            stack.stack("documents-start");
            Instant back = Instant.now();
            log("document service back after %d s down; %d submissions so far", Duration.between(down, back).toSeconds(), submitted.get());
            Thread.sleep(after.toMillis());
            loading.set(false);
            pacer.join();
            clients.shutdown();
            clients.awaitTermination(10, TimeUnit.MINUTES);
            Instant loadEnded = Instant.now();
            log("load ended: %d runs submitted in %d s (the pacer was at most %d ms behind)", runs.size(),
                    Duration.between(started, loadEnded).toSeconds(), latestSubmissionLagMillis.get());

            Instant deadline = loadEnded.plus(timeout);
            int live;
            while ((live = stack.liveRuns()) > 0 && Instant.now().isBefore(deadline)) {
                Thread.sleep(1_000);
            }
            Instant allEnded = Instant.now();
            watching.set(false);
            watcher.join();

            RunAccounting.Result result = RunAccounting.check(stack.viewer, runs);
            int duplicates = stack.effects().getInt("duplicateEffects") - effectsBefore;
            int unknown = stack.totalRuns() - runsBefore - runs.size();
            long deadLetters = deadLettersInAll() - deadLettersBefore;
            Duration toHold = firstAfter(down, "HELD").map(at -> Duration.between(down, at)).orElse(null);
            Duration toResume = firstAfter(back, "RUNNING").map(at -> Duration.between(back, at)).orElse(null);
            Duration toAllDone = Duration.between(back, allEnded);
            List<String> heldOn = heldOnEveryNode(down, back);

            Map<String, Object> figures = new TreeMap<>();
            figures.put("runs", runs.size());
            figures.put("lost", result.lost());
            figures.put("deadLettered", result.falseDeadLetters());
            figures.put("deadLettersRecorded", deadLetters);
            figures.put("duplicatedEffects", duplicates);
            figures.put("unknownRuns", unknown);
            figures.put("secondsToHold", toHold == null ? -1 : toHold.toMillis() / 1000.0);
            figures.put("secondsToResumeAfterReturn", toResume == null ? -1 : toResume.toMillis() / 1000.0);
            figures.put("secondsUntilEveryRunEnded", toAllDone.toSeconds());
            figures.put("mostWaitingAtFetch", mostWaiting.get());
            figures.put("heldOnNodes", String.join(" ", heldOn));
            figures.put("notEnded", live);
            print(name, rate, outage, figures, result);
            write(name, rate, outage, hold, figures, result);

            List<String> failures = new ArrayList<>();
            if (result.lost() > 0 || live > 0) {
                failures.add(result.lost() + " run(s) lost (not ended within " + timeout + " of the load)");
            }
            if (duplicates > 0 || unknown != 0) {
                failures.add(duplicates + " effect(s) committed twice, " + unknown + " run(s) the drill did not start");
            }
            if (result.wrongEnds() > 0) {
                failures.add(result.wrongEnds() + " run(s) ended wrongly");
            }
            if (hold) {
                if (result.falseDeadLetters() > maxDeadLetters) {
                    failures.add(result.falseDeadLetters() + " runs dead-lettered, more than " + maxDeadLetters);
                }
                if (toHold == null || heldOn.size() < nodes.size()) {
                    failures.add("the fetch step was not seen held on every node (" + heldOn + ")");
                }
                if (toResume == null || toResume.compareTo(coolDownMax.plusSeconds(15)) > 0) {
                    failures.add("the fetch step did not run again within one cool-down (" + coolDownMax + ") of the service's return: "
                            + (toResume == null ? "never" : toResume.toSeconds() + " s"));
                }
            }
            failures.forEach(f -> log("FAILED: %s", f));
            if (failures.isEmpty()) {
                log("passed: nothing lost or doubled%s", hold ? ", " + result.falseDeadLetters() + " dead letter(s)" : "");
            }
            return failures.isEmpty() ? 0 : 1;
        } finally {
            watching.set(false);
            stack.stack("documents-start");
            if (!hold) {
                stack.stack("hold", "on");
            }
        }
    }

    /** Submits {@code rate} runs a second, each on its own schedule, round the nodes, until told to stop. */
    private void pace(double rate, AtomicBoolean loading, ExecutorService clients, Instant started) {
        long intervalNanos = (long) (1_000_000_000L / rate);
        long origin = System.nanoTime();
        for (long n = 0; loading.get(); n++) {
            long due = origin + n * intervalNanos;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                try {
                    TimeUnit.NANOSECONDS.sleep(wait);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            } else {
                latestSubmissionLagMillis.accumulateAndGet(-wait / 1_000_000, Math::max);
            }
            Api node = nodes.get((int) (n % nodes.size()));
            clients.submit(() -> submitUntilAccepted(node));
        }
    }

    /** As the fault drills: tried again a second after a refusal, under the same Idempotency-Key. */
    private void submitUntilAccepted(Api node) {
        String key = UUID.randomUUID().toString();
        String body = "{\"pipeline\":\"" + PIPELINE + "\",\"payload\":{\"url\":\"https://docs.example.org/outage-drill-" + key + ".html\"}}";
        Instant giveUp = Instant.now().plus(Duration.ofMinutes(10));
        while (Instant.now().isBefore(giveUp)) {
            try {
                Api.Response created = node.post("api/runs", body, "Idempotency-Key", key);
                if (created.status() == 201 || created.status() == 200) {
                    runs.put(created.json().getString("id"), RunShape.QUICK);
                    submitted.incrementAndGet();
                    return;
                }
                refusals.merge(String.valueOf(created.status()), 1, Integer::sum);
            } catch (RuntimeException noAnswer) {
                refusals.merge("no answer", 1, Integer::sum);
            }
            try {
                Thread.sleep(1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Every half second, the fetch step's state as each node's API shows it (it reads the database, as the node does). */
    private void watch(AtomicBoolean watching) {
        while (watching.get()) {
            for (int node = 0; node < nodes.size(); node++) {
                try {
                    JsonObject fetch = fetch(node);
                    seen.add(new Seen(Instant.now(), node, fetch.getString("state")));
                    if (fetch.get("waiting") instanceof jakarta.json.JsonNumber waiting) {
                        mostWaiting.accumulateAndGet(waiting.longValue(), Math::max);
                    }
                } catch (RuntimeException | AssertionError unreadable) {
                    // a node busy or away for a moment: the next look tells
                }
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private JsonObject fetch(int node) {
        return nodes.get(node).get("api/steps").ok().json().getJsonArray("steps").stream().map(JsonValue::asJsonObject)
                .filter(s -> PIPELINE.equals(s.getString("pipeline")) && STEP.equals(s.getString("step"))).findFirst()
                .orElseThrow(() -> new IllegalStateException("no step " + STEP + " in /api/steps"));
    }

    private String fetchState(int node) {
        return fetch(node).getString("state");
    }

    /** When a node was first seen with the fetch step in {@code state} after {@code since}. */
    private java.util.Optional<Instant> firstAfter(Instant since, String state) {
        return seen.stream().filter(s -> !s.at().isBefore(since) && s.state().equals(state)).map(Seen::at).min(Instant::compareTo);
    }

    private List<String> heldOnEveryNode(Instant down, Instant back) {
        List<String> held = new ArrayList<>();
        for (int node = 0; node < nodes.size(); node++) {
            int n = node;
            if (seen.stream().anyMatch(s -> s.node() == n && s.state().equals("HELD") && s.at().isAfter(down) && s.at().isBefore(back))) {
                held.add("node-" + (node + 1));
            }
        }
        return held;
    }

    private long deadLettersInAll() {
        JsonObject stats = stack.viewer.get("api/dead-letters/stats").ok().json();
        return stats.getJsonNumber("total").longValue();
    }

    private void print(String name, double rate, Duration outage, Map<String, Object> figures, RunAccounting.Result result) {
        System.out.println();
        System.out.printf("| drill | runs/s | outage | runs | lost | dead-lettered | duplicated | to hold | to run again | every run ended | most waiting |%n");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|");
        System.out.printf("| %s | %.0f | %d s | %s | %s | %s | %s | %s s | %s s | %s s after the return | %s |%n", name, rate, outage.toSeconds(),
                figures.get("runs"), figures.get("lost"), figures.get("deadLettered"), figures.get("duplicatedEffects"),
                figures.get("secondsToHold"), figures.get("secondsToResumeAfterReturn"), figures.get("secondsUntilEveryRunEnded"),
                figures.get("mostWaitingAtFetch"));
        System.out.println();
        System.out.println("dead-lettered by reason: " + result.reasons() + "; dead letters recorded in all: " + figures.get("deadLettersRecorded"));
        System.out.println("refused submissions by answer (tried again until accepted): " + refusals);
        System.out.println("the fetch step held on: " + figures.get("heldOnNodes"));
        result.examples().forEach(e -> System.out.println("  ! " + e));
        System.out.println();
    }

    private void write(String name, double rate, Duration outage, boolean hold, Map<String, Object> figures,
                       RunAccounting.Result result) throws IOException {
        var json = Json.createObjectBuilder().add("drill", name).add("ratePerSecond", rate).add("outageSeconds", outage.toSeconds())
                .add("hold", hold).add("nodes", nodes.size());
        figures.forEach((key, value) -> {
            if (value instanceof Number number) {
                json.add(key, number.doubleValue());
            } else {
                json.add(key, String.valueOf(value));
            }
        });
        var refused = Json.createObjectBuilder();
        refusals.forEach(refused::add);
        json.add("refusedSubmissions", refused).add("deadLetteredByReason", RunAccounting.reasonsJson(result))
                .add("examples", Json.createArrayBuilder(result.examples()));
        Path out = stack.repo.resolve("target/drill/" + name + ".json");
        Files.createDirectories(out.getParent());
        Files.writeString(out, json.build().toString());
        log("wrote %s", stack.repo.relativize(out));
    }
}
