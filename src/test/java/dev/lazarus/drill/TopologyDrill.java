package dev.lazarus.drill;

import static dev.lazarus.drill.DemoStack.log;

import dev.lazarus.it.Api;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * The topology drill: the fault drill's load and accounting on two WildFly nodes and two clustered brokers
 * ({@code mvn -Pcluster package}), with node 2 killed with {@code kill -9} and broker 1 stopped while runs are in
 * flight (see {@link Fault#TOPOLOGY}). Then the dead letters on both brokers (with {@value #NODE_TWO_POISON} more
 * poison runs submitted to node 2, so that both nodes send step messages): each broker must hold some of the
 * dead-lettered runs' messages (a message dies on the broker where its last delivery failed), and a bulk
 * requeue started on node 1 must take every one of them out of whichever broker holds it ({@code redispatched}
 * 0: none had to be sent again from the database because its message was not found); the requeued runs then
 * fail again as their shape says, each with one dead letter; and node 2's API answers with the same dead letters
 * as node 1's. Last, a node lost for good ({@link #nodeLostForGood}): a batch submitted to node 1, node 1 killed a few
 * seconds later and never started again; node 2 must finish every one of its runs within a minute, with no operator.
 *
 * <pre>
 * mvn -Pcluster package
 * mvn -Pdrill-topology test-compile exec:java      # 600 runs, 2 faults (-Ddrill.runs, -Ddrill.faults, -Ddrill.outage)
 * </pre>
 */
public final class TopologyDrill {

    private static final String REASON = "RETRIES_EXHAUSTED";
    private static final int NODE_TWO_POISON = 40;
    private static final String PARSE = "lazarus.document-ingestion.parse";
    private static final List<String> CONSOLES = List.of("http://127.0.0.1:8161", "http://127.0.0.1:8162");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private TopologyDrill() {
    }

    public static void main(String[] args) throws Exception {
        if (System.getProperty("drill.stack-dir") == null) {
            System.setProperty("drill.stack-dir", "target/cluster");
        }
        FaultDrill.main(Fault.TOPOLOGY, 600, 2, (stack, runs) -> {
            List<String> problems = deadLettersOnBothBrokers(stack, runs);
            return problems.isEmpty() ? nodeLostForGood(stack) : problems;
        });
    }

    private static List<String> deadLettersOnBothBrokers(DemoStack stack, Map<String, RunShape> drillRuns) throws Exception {
        List<String> problems = new ArrayList<>();
        // poison runs submitted to node 2 too: their messages die on either broker, wherever their parse step ran
        Map<String, RunShape> runs = new java.util.HashMap<>(drillRuns);
        Api nodeTwo = new Api(URI.create("http://127.0.0.1:8280/lazarus/").toURL(), "operator", "operator-pw");
        for (int i = 0; i < NODE_TWO_POISON; i++) {
            runs.put(nodeTwo.startRun(RunShape.POISON.payload), RunShape.POISON);
        }
        stack.awaitQuiet(Instant.now().plus(Duration.ofMinutes(5)));
        // a run is dead-lettered at its last failed attempt; its message is parked at the broker's next redelivery,
        // after the step's backoff: wait until every one is in a DLQ, or a requeue would find some still on their way
        int matching = stack.viewer.get("api/requeue-jobs/dry-run?reason=" + REASON).ok().json().getInt("matching");
        List<Integer> before = parseDlqDepths();
        Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
        while (before.get(0) + before.get(1) < matching && Instant.now().isBefore(deadline)) {
            Thread.sleep(1_000);
            before = parseDlqDepths();
        }
        log("%d open %s dead letters; their messages in DLQ.%s: broker 1 %d, broker 2 %d", matching, REASON, PARSE,
                before.get(0), before.get(1));
        if (before.get(0) == 0 || before.get(1) == 0) {
            problems.add("each broker should hold dead-lettered messages, found " + before);
        }
        var started = stack.operator.post("api/requeue-jobs", "{\"filter\":{\"reason\":\"" + REASON + "\"},\"ratePerSecond\":0}");
        if (started.status() != 202) {
            problems.add("the bulk requeue was not started: " + started.status() + " " + started.body());
            return problems;
        }
        String job = URI.create(started.location()).getPath().replaceFirst(".*/api/", "api/");
        JsonObject finished = awaitJob(stack, job);
        log("bulk requeue of %s on node 1: %s", REASON, finished);
        if (!"COMPLETED".equals(finished.getString("state")) || finished.getInt("requeued") != matching) {
            problems.add("the bulk requeue should requeue all " + matching + " " + REASON + " dead letters: " + finished);
        }
        if (finished.getInt("redispatched") != 0) {
            problems.add(finished.getInt("redispatched") + " of them were sent again from the database: their messages were"
                    + " not found on the broker that held them");
        }
        // the requeued runs fail again (their shape), and their new dead letters are parked again: wait, then account
        stack.awaitQuiet(Instant.now().plus(Duration.ofMinutes(10)));
        RunAccounting.Result again = RunAccounting.check(stack.viewer, runs);
        RunAccounting.printEnds(again);
        if (again.lost() > 0 || again.falseDeadLetters() > 0 || again.wrongEnds() > 0) {
            problems.add("after the requeue: " + again.lost() + " lost, " + again.falseDeadLetters() + " false dead letters, "
                    + again.wrongEnds() + " wrong ends " + again.examples());
        }
        // both nodes' admin pages and APIs show the same dead letters: one database
        Api nodeTwoViewer = new Api(URI.create("http://127.0.0.1:8280/lazarus/").toURL(), "viewer", "viewer-pw");
        long onNodeOne = stack.viewer.get("api/dead-letters?limit=1").ok().json().getJsonNumber("total").longValue();
        long onNodeTwo = nodeTwoViewer.get("api/dead-letters?limit=1").ok().json().getJsonNumber("total").longValue();
        log("dead letters seen by node 1: %d, by node 2: %d", onNodeOne, onNodeTwo);
        if (onNodeOne != onNodeTwo) {
            problems.add("node 1 shows " + onNodeOne + " dead letters, node 2 " + onNodeTwo);
        }
        return problems;
    }

    /** How many runs the lost node is given in one batch, and how long the survivor has to finish them. */
    private static final int LOST_NODE_RUNS = Integer.getInteger("drill.lost-node.runs", 400);
    private static final Duration LOST_NODE_DEADLINE = Duration.parse(System.getProperty("drill.lost-node.within", "PT60S"));
    /** How long after the batch was accepted node 1 is killed: while its runs are in flight. */
    private static final Duration LOST_NODE_AFTER = Duration.parse(System.getProperty("drill.lost-node.after", "PT1S"));

    /**
     * A node lost for good: {@code drill.lost-node.runs} (400) runs submitted to node 1 in one batch, node 1 killed with
     * {@code kill -9} {@code drill.lost-node.after} (a second) later (runs in every state: waiting for their first message,
     * in a step, between a step's commit and its next message) and never started again. Node 2 must complete every run within
     * {@code drill.lost-node.within} (a minute) of the kill: the messages node 1's consumers held go back to their
     * queues when its connections die, and the dispatches it recorded but had not sent are sent again by node 2 once
     * node 1 has been silent for {@code lazarus.dispatch.node-silent-after}. None dead-lettered, no effect doubled.
     */
    static List<String> nodeLostForGood(DemoStack stack) throws Exception {
        List<String> problems = new ArrayList<>();
        Api nodeTwo = new Api(URI.create("http://127.0.0.1:8280/lazarus/").toURL(), "viewer", "viewer-pw");
        int effectsBefore = stack.effects().getInt("duplicateEffects");
        StringBuilder batch = new StringBuilder("{\"runs\":[");
        for (int i = 0; i < LOST_NODE_RUNS; i++) {
            batch.append(i > 0 ? "," : "").append("{\"pipeline\":\"document-ingestion\",\"payload\":")
                    .append(RunShape.QUICK.payload).append('}');
        }
        Api.Response created = stack.operator.post("api/runs/batch", batch.append("]}").toString());
        if (created.status() != 201) {
            return List.of("the batch was refused by node 1: " + created.status() + " " + created.body());
        }
        List<String> runs = created.json().getJsonArray("runs").stream().map(r -> r.asJsonObject().getString("id")).toList();
        Thread.sleep(LOST_NODE_AFTER.toMillis());
        int live = stack.liveRuns(); // every other run has ended by now: these are the batch's
        stack.stack("cluster-node-kill", "1");
        Instant killed = Instant.now();
        log("node lost for good: %d runs submitted to node 1 in one batch, node 1 killed %d ms later (%d of them not ended) and"
                + " left down", runs.size(), LOST_NODE_AFTER.toMillis(), live);
        Instant deadline = killed.plus(LOST_NODE_DEADLINE);
        Map<String, Integer> ends = Map.of();
        while (Instant.now().isBefore(deadline.plusSeconds(30))) {
            ends = ends(nodeTwo, runs);
            if (ends.getOrDefault("live", 0) == 0) {
                break;
            }
            Thread.sleep(1_000);
        }
        Duration took = Duration.between(killed, Instant.now());
        log("node 2 ended them %d s after node 1 was killed: %s", took.toSeconds(), ends);
        if (!Map.of("COMPLETED", runs.size()).equals(ends)) {
            problems.add("every run node 1 had should complete on node 2; found " + ends);
        } else if (took.compareTo(LOST_NODE_DEADLINE) > 0) {
            problems.add("node 2 took " + took.toSeconds() + " s to complete node 1's runs, more than " + LOST_NODE_DEADLINE.toSeconds() + " s");
        }
        int duplicates = nodeTwo.get("api/demo/index-effects").ok().json().getInt("duplicateEffects") - effectsBefore;
        if (duplicates != 0) {
            problems.add(duplicates + " index effects committed twice");
        }
        return problems;
    }

    /** How many of the runs are in each end state, and how many are still live. */
    private static Map<String, Integer> ends(Api viewer, List<String> runs) {
        Map<String, Integer> ends = new java.util.TreeMap<>();
        for (String id : runs) {
            String state = viewer.run(id).getString("state");
            ends.merge("COMPLETED".equals(state) || "DEAD_LETTERED".equals(state) ? state : "live", 1, Integer::sum);
        }
        return ends;
    }

    private static JsonObject awaitJob(DemoStack stack, String job) throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofMinutes(5));
        while (Instant.now().isBefore(deadline)) {
            JsonObject state = stack.viewer.get(job).ok().json();
            if (!"RUNNING".equals(state.getString("state"))) {
                return state;
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException(job + " still running after 5 minutes");
    }

    /** Messages parked with a {@value #REASON} dead letter in each broker's DLQ of the parse step (where poison runs fail). */
    private static List<Integer> parseDlqDepths() throws Exception {
        List<Integer> depths = new ArrayList<>();
        for (int n = 1; n <= CONSOLES.size(); n++) {
            String console = CONSOLES.get(n - 1);
            String queue = "\"DLQ." + PARSE + "\"";
            String request = Json.createObjectBuilder().add("type", "exec")
                    .add("mbean", "org.apache.activemq.artemis:broker=\"broker-" + n + "\",component=addresses,address=" + queue
                            + ",subcomponent=queues,routing-type=\"anycast\",queue=" + queue)
                    .add("operation", "countMessages(java.lang.String)")
                    .add("arguments", Json.createArrayBuilder().add("lazarusReason = '" + REASON + "'")).build().toString();
            JsonObject answer = Json.createReader(new StringReader(jolokia(console, request))).readObject();
            if (answer.getInt("status") != 200) {
                throw new IllegalStateException(console + ": " + answer);
            }
            depths.add(answer.getJsonNumber("value").intValue());
        }
        return depths;
    }

    private static String jolokia(String console, String request) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(console + "/console/jolokia/"))
                        .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("admin:admin".getBytes(StandardCharsets.UTF_8)))
                        .header("Origin", console).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(request)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }
}
