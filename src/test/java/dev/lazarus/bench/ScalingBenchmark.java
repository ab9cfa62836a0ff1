package dev.lazarus.bench;

import dev.lazarus.it.Api;
import jakarta.json.Json;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Two nodes against one, in the same run, on the running two-node topology ({@code mvn -Pcluster package}):
 * the same number of 3-step demo runs submitted in batches, timed from the first batch until all completed,
 * first with node 2 stopped (node 1 alone, broker 2 idle in the cluster), then with both nodes, the runs split
 * between them. Each phase starts with a warm-up. Writes {@code target/bench/scaling.json} and prints a table
 * for src/site/markdown/benchmarks.md.
 *
 * <pre>
 * mvn -Pcluster package
 * mvn -Pbench-scaling test-compile exec:java     # -Dbench.runs=10000, -Dbench.warmup=1000
 * </pre>
 */
public final class ScalingBenchmark {

    private static final int BATCH = 500;
    private static final List<String> NODES = List.of("http://127.0.0.1:8080/lazarus/", "http://127.0.0.1:8280/lazarus/");

    private final Path repo = Path.of(System.getProperty("bench.repo", ".")).toAbsolutePath().normalize();
    private final int runs = Integer.getInteger("bench.runs", 10_000);
    private final int warmup = Integer.getInteger("bench.warmup", 1_000);
    private final AtomicLong sequence = new AtomicLong();
    private final List<Api> operators = new ArrayList<>();
    private final Api viewer;

    private ScalingBenchmark() throws IOException {
        for (String node : NODES) {
            operators.add(new Api(URI.create(node).toURL(), "operator", "operator-pw"));
        }
        viewer = new Api(URI.create(NODES.get(0)).toURL(), "viewer", "viewer-pw");
    }

    public static void main(String[] args) throws Exception {
        new ScalingBenchmark().measure();
        System.exit(0);
    }

    private record Phase(int nodes, int runs, double seconds, double stepsPerSecond, double cpuMillisPerStep) {
    }

    private void measure() throws Exception {
        stack("cluster-node-stop", "2");
        Phase one = phase(List.of(operators.get(0)));
        stack("cluster-node-start", "2");
        awaitDeployed(operators.get(1));
        Phase two = phase(operators);
        double ratio = two.stepsPerSecond() / one.stepsPerSecond();

        System.out.println();
        System.out.println("| nodes | runs | seconds | steps/s | WildFly CPU per step (ms, all nodes) |");
        System.out.println("|---|---|---|---|---|");
        for (Phase phase : List.of(one, two)) {
            System.out.printf(Locale.ROOT, "| %d | %d | %.1f | %.0f | %.2f |%n", phase.nodes(), phase.runs(), phase.seconds(),
                    phase.stepsPerSecond(), phase.cpuMillisPerStep());
        }
        System.out.printf(Locale.ROOT, "two nodes / one node: %.2f%n", ratio);
        Path out = repo.resolve("target/bench/scaling.json");
        Files.createDirectories(out.getParent());
        var json = Json.createObjectBuilder().add("oneNodeStepsPerS", one.stepsPerSecond()).add("twoNodesStepsPerS", two.stepsPerSecond())
                .add("ratio", ratio).add("runs", runs).add("oneNodeCpuMsPerStep", one.cpuMillisPerStep())
                .add("twoNodesCpuMsPerStep", two.cpuMillisPerStep()).add("cores", Runtime.getRuntime().availableProcessors());
        Files.writeString(out, json.build().toString());
        log("wrote %s", repo.relativize(out));
    }

    /** A warm-up, then {@link #runs} runs split over {@code nodes}, timed until all completed. */
    private Phase phase(List<Api> nodes) throws Exception {
        log("%d node(s): warm-up of %d runs", nodes.size(), warmup);
        submitAndAwait(nodes, warmup);
        long cpu = cpuMillis();
        Instant started = Instant.now();
        submitAndAwait(nodes, runs);
        double seconds = Duration.between(started, Instant.now()).toMillis() / 1000.0;
        double stepsPerSecond = runs * 3 / seconds;
        double cpuPerStep = (cpuMillis() - cpu) / (runs * 3.0);
        log("%d node(s): %d runs in %.1f s, %.0f steps/s, %.2f ms of WildFly CPU per step", nodes.size(), runs, seconds,
                stepsPerSecond, cpuPerStep);
        return new Phase(nodes.size(), runs, seconds, stepsPerSecond, cpuPerStep);
    }

    private void submitAndAwait(List<Api> nodes, int count) throws Exception {
        int target = completed() + count;
        ExecutorService pool = Executors.newFixedThreadPool(nodes.size());
        List<Future<?>> work = new ArrayList<>();
        for (int n = 0; n < nodes.size(); n++) {
            Api node = nodes.get(n);
            int share = count / nodes.size() + (n < count % nodes.size() ? 1 : 0);
            work.add(pool.submit(() -> {
                for (int sent = 0; sent < share; sent += BATCH) {
                    postBatch(node, Math.min(BATCH, share - sent));
                }
                return null;
            }));
        }
        for (Future<?> f : work) {
            f.get();
        }
        pool.shutdown();
        Instant deadline = Instant.now().plus(Duration.ofMinutes(30));
        int last = -1;
        Instant moved = Instant.now();
        for (int done = completed(); done < target; done = completed()) {
            if (done != last) {
                last = done;
                moved = Instant.now();
            } else if (Duration.between(moved, Instant.now()).toMinutes() >= 1 || Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("runs stopped completing: " + done + " of " + target);
            }
            Thread.sleep(100);
        }
    }

    private void postBatch(Api node, int size) {
        StringBuilder body = new StringBuilder("{\"runs\":[");
        for (int i = 0; i < size; i++) {
            body.append(i > 0 ? "," : "").append("{\"pipeline\":\"document-ingestion\",\"payload\":{\"url\":\"https://bench.example.org/doc-")
                    .append(sequence.incrementAndGet()).append(".html\"}}");
        }
        Api.Response response = node.post("api/runs/batch", body.append("]}").toString());
        if (response.status() != 201) {
            throw new IllegalStateException("a batch was refused: " + response);
        }
    }

    private int completed() {
        return viewer.get("api/runs?limit=1&state=COMPLETED").ok().json().getInt("total");
    }

    /** CPU of every running node's WildFly. */
    private long cpuMillis() {
        long total = 0;
        for (int n = 1; n <= NODES.size(); n++) {
            Path pid = repo.resolve("target/cluster/node-" + n + ".pid");
            if (Files.exists(pid)) {
                total += ProcessCpu.millis(pid);
            }
        }
        return total;
    }

    private void awaitDeployed(Api node) throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofMinutes(3));
        while (Instant.now().isBefore(deadline)) {
            try {
                if (node.get("api/runs?limit=1").status() == 200) {
                    return;
                }
            } catch (RuntimeException notYet) {
                // starting
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException("node 2 did not answer within 3 minutes of starting");
    }

    private void stack(String... command) throws IOException, InterruptedException {
        Path servers = repo.resolve("target/servers");
        List<String> words = new ArrayList<>(List.of("bash", repo.resolve("wildfly-config/stack.sh").toString()));
        words.addAll(List.of(command));
        ProcessBuilder script = new ProcessBuilder(words).inheritIO();
        try (var found = Files.list(servers)) {
            found.forEach(p -> {
                String name = p.getFileName().toString();
                if (name.startsWith("wildfly-")) {
                    script.environment().put("WILDFLY_HOME", p.toString());
                } else if (name.startsWith("apache-artemis-")) {
                    script.environment().put("ARTEMIS_HOME", p.toString());
                }
            });
        }
        if (script.start().waitFor() != 0) {
            throw new IllegalStateException("stack.sh " + String.join(" ", command) + " failed");
        }
    }

    private static void log(String format, Object... args) {
        System.out.println("[bench] " + String.format(Locale.ROOT, format, args));
    }
}
