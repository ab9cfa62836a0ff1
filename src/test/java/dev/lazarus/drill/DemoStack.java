package dev.lazarus.drill;

import dev.lazarus.it.Api;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The running demo stack, as the drills see it: its REST API (as the demo's operator and viewer) and the
 * stack script's commands that break and mend it ({@code wildfly-config/stack.sh}).
 */
final class DemoStack {

    final Api operator;
    final Api viewer;
    final Path repo = Path.of(System.getProperty("drill.repo", ".")).toAbsolutePath().normalize();

    DemoStack() {
        URL base = url(System.getProperty("drill.url", "http://127.0.0.1:8080/lazarus/"));
        this.operator = new Api(base, "operator", "operator-pw");
        this.viewer = new Api(base, "viewer", "viewer-pw");
    }

    private static URL url(String text) {
        try {
            return URI.create(text).toURL();
        } catch (java.net.MalformedURLException e) {
            throw new IllegalArgumentException(text, e);
        }
    }

    /**
     * Live runs on the stack (every run, the drill's and others'); MAX_VALUE while the API does not answer. Read in one
     * query (the staleness view's, over PENDING, IN_PROGRESS and RETRYING at once): counted one state at a time, a run
     * going from RETRYING to IN_PROGRESS between two reads was in neither, and the drill took the stack for quiet.
     */
    int liveRuns() {
        try {
            return viewer.get("api/staleness?limit=1").ok().json().getInt("total");
        } catch (RuntimeException | AssertionError down) {
            return Integer.MAX_VALUE;
        }
    }

    /** Every run the stack knows, in any state. */
    int totalRuns() {
        return viewer.get("api/runs?limit=1").ok().json().getInt("total");
    }

    /** The demo index step's durable record of effects (see IndexEffectsResource). */
    JsonObject effects() {
        return viewer.get("api/demo/index-effects").ok().json();
    }

    /** Waits until the API answers a read again (after a restart or an outage). */
    Duration awaitApi(Duration timeout) throws InterruptedException {
        Instant start = Instant.now();
        Instant deadline = start.plus(timeout);
        while (Instant.now().isBefore(deadline)) {
            try {
                if (viewer.get("api/runs?limit=1").status() == 200) {
                    return Duration.between(start, Instant.now());
                }
            } catch (RuntimeException notYet) {
                // starting
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException("the API did not come back within " + timeout);
    }

    /** Waits until no run is live, or the deadline passes. */
    void awaitQuiet(Instant deadline) throws InterruptedException {
        while (liveRuns() > 0 && Instant.now().isBefore(deadline)) {
            Thread.sleep(2_000);
        }
    }

    /**
     * Runs one command of the stack script (with its arguments) against the drill's stack: the demo stack, or
     * the one in {@code -Ddrill.stack-dir} (target/cluster for the topology drill).
     */
    void stack(String... command) throws IOException, InterruptedException {
        Path servers = repo.resolve("target/servers");
        List<String> words = new java.util.ArrayList<>(List.of("bash", repo.resolve("wildfly-config/stack.sh").toString()));
        words.addAll(List.of(command));
        ProcessBuilder script = new ProcessBuilder(words).inheritIO();
        script.environment().put("WILDFLY_HOME", unpacked(servers, "wildfly-").toString());
        script.environment().put("ARTEMIS_HOME", unpacked(servers, "apache-artemis-").toString());
        script.environment().put("STACK_DIR", repo.resolve(System.getProperty("drill.stack-dir", "target/demo")).toString());
        script.environment().put("BROKER_PORT", System.getProperty("drill.broker.port", "61616"));
        int exit = script.start().waitFor();
        if (exit != 0) {
            throw new IllegalStateException("stack.sh " + String.join(" ", command) + " failed (" + exit + ")");
        }
    }

    private static Path unpacked(Path servers, String prefix) throws IOException {
        try (var found = Files.list(servers)) {
            return found.filter(p -> p.getFileName().toString().startsWith(prefix)).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no " + prefix + "* under " + servers + ": run mvn -Pdemo package first"));
        }
    }

    static void log(String format, Object... args) {
        System.out.println("[drill] " + String.format(format, args));
    }
}
