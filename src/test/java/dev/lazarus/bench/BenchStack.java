package dev.lazarus.bench;

import dev.lazarus.bench.relay.IdempotentLedgerHop;
import dev.lazarus.bench.relay.PlainHop;
import dev.lazarus.bench.relay.RelayHop;
import dev.lazarus.bench.relay.XaLedgerHop;
import dev.lazarus.it.Api;
import dev.lazarus.it.Broker;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.exporter.ZipExporter;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/**
 * A fresh stack for one database, as the pipeline benchmark uses it: the README's local stack without the demo
 * runs ({@code stack.sh bench-up}, in {@code target/bench/stack}, on the demo stack's ports), with the bare
 * relay deployed next to Lazarus. Closing it stops it.
 */
final class BenchStack implements AutoCloseable {

    static final int HTTP_PORT = 8080;
    static final int BROKER_PORT = 61616;
    static final int EMBEDDED_DB_PORT = 5433;

    final String database;
    final Path dir;
    final Api operator;
    final Api viewer;
    final Broker broker = new Broker(BROKER_PORT);
    private final Path repo;
    /** How many runs the benchmark made fail on purpose so far: any other dead letter spoils the figures. */
    int expectedDeadLetters;
    /** The database server's main process, once looked up. */
    private long postmaster = -1;

    private BenchStack(String database, Path repo, Path dir) {
        this.database = database;
        this.repo = repo;
        this.dir = dir;
        try {
            var base = URI.create("http://127.0.0.1:" + HTTP_PORT + "/lazarus/").toURL();
            this.operator = new Api(base, "operator", "operator-pw");
            this.viewer = new Api(base, "viewer", "viewer-pw");
        } catch (java.net.MalformedURLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Starts the stack on {@code database}: embedded (the default: a PostgreSQL the stack starts) or postgresql (the
     * machine's, given a fresh, empty database first by .ci/postgres.sh).
     */
    static BenchStack up(String database, Path repo, Path benchDir) throws IOException, InterruptedException {
        // 8090: the stand-in document service the demo pipeline's fetch step calls (stack.sh starts it)
        for (int port : List.of(HTTP_PORT, 9990, BROKER_PORT, 8161, EMBEDDED_DB_PORT, 8090)) {
            if (inUse(port)) {
                throw new IllegalStateException("port " + port + " is in use: the benchmark runs its own stack on the demo"
                        + " stack's ports. Stop the demo stack first: bash wildfly-config/stack.sh demo-down");
            }
        }
        BenchStack stack = new BenchStack(database, repo, benchDir.resolve("stack"));
        if (database.equals("postgresql")) {
            stack.run(Map.of(), "bash", ".ci/postgres.sh");
        }
        PipelineBenchmark.log("starting the stack on %s", database);
        try {
            stack.stackScript("bench-up");
            // Lazarus's own cost, without its automatic hold (issue #21): the dead-letter visibility phase fails runs
            // at fetch on purpose, up to 20 retryable failures in a row, which the hold rightly takes for an outage and
            // holds fetch for minutes. Off before any traffic: a step's settings, once read, are kept 10 s.
            stack.stackScript("hold", "off");
            stack.deployRelay(benchDir);
        } catch (IOException | InterruptedException | RuntimeException e) {
            stack.close(); // never leave a half-started stack on the demo stack's ports
            throw e;
        }
        return stack;
    }

    private static boolean inUse(int port) {
        try (Socket ignored = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException free) {
            return false;
        }
    }

    /**
     * Builds the relays' WAR from their classes and deploys it next to Lazarus: the bare XA relay, the non-transacted
     * relay, and the two ledger relays of the hot path's spike (with their tables in Lazarus's database).
     */
    private void deployRelay(Path benchDir) throws IOException, InterruptedException {
        for (String queue : List.of(RelayHop.FIRST, RelayHop.SECOND, RelayHop.THIRD, RelayHop.DONE,
                PlainHop.FIRST, PlainHop.SECOND, PlainHop.THIRD, PlainHop.DONE,
                XaLedgerHop.FIRST, XaLedgerHop.SECOND, XaLedgerHop.THIRD, XaLedgerHop.DONE,
                IdempotentLedgerHop.FIRST, IdempotentLedgerHop.SECOND, IdempotentLedgerHop.THIRD, IdempotentLedgerHop.DONE)) {
            broker.createQueue(queue);
        }
        try (Connection connection = connect(); Statement ddl = connection.createStatement()) {
            // what a step's record is at its leanest: the item (a run) and a row per hop (a step execution)
            ddl.execute("create table if not exists bench_ledger (id uuid primary key, hop int not null, payload text not null,"
                    + " version bigint not null default 0, updated_at timestamptz not null default now())");
            ddl.execute("create table if not exists bench_ledger_step (id bigserial primary key, item_id uuid not null,"
                    + " hop int not null, finished_at timestamptz not null)");
            ddl.execute("create index if not exists bench_ledger_step_item on bench_ledger_step (item_id, hop)");
        } catch (SQLException e) {
            throw new IllegalStateException("could not create the ledger relays' tables: " + e.getMessage(), e);
        }
        Path war = benchDir.resolve("bench-relay.war");
        ShrinkWrap.create(WebArchive.class, "bench-relay.war")
                .addPackage(RelayHop.class.getPackage())
                // a CDI archive, so that the hops' JMSContext is injected
                .addAsWebInfResource(new StringAsset("<beans xmlns=\"https://jakarta.ee/xml/ns/jakartaee\" version=\"4.0\""
                        + " bean-discovery-mode=\"all\"/>"), "beans.xml")
                .as(ZipExporter.class).exportTo(war.toFile(), true);
        Path deployments = dir.resolve("wildfly/deployments");
        Files.copy(war, deployments.resolve("bench-relay.war"));
        Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
        while (!Files.exists(deployments.resolve("bench-relay.war.deployed"))) {
            if (Files.exists(deployments.resolve("bench-relay.war.failed"))) {
                throw new IllegalStateException("the relay did not deploy: " + Files.readString(deployments.resolve("bench-relay.war.failed")));
            }
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("the relay was not deployed within 2 minutes, see " + dir.resolve("wildfly/log/server.log"));
            }
            Thread.sleep(250);
        }
        PipelineBenchmark.log("the relays deployed next to Lazarus");
    }

    /** Adds {@code count} items for a ledger relay, each with a payload the size of the demo's, and returns their ids. */
    List<UUID> ledgerItems(int count) {
        List<UUID> ids = new ArrayList<>(count);
        try (Connection connection = connect();
             PreparedStatement insert = connection.prepareStatement("insert into bench_ledger (id, hop, payload) values (?, 0, ?)")) {
            connection.setAutoCommit(false);
            for (int i = 0; i < count; i++) {
                UUID id = UUID.randomUUID();
                ids.add(id);
                insert.setObject(1, id);
                insert.setString(2, "{\"url\":\"https://bench.example.org/doc-" + id + ".html\",\"title\":\"A document\"}");
                insert.addBatch();
                if (i % 1000 == 999) {
                    insert.executeBatch();
                }
            }
            insert.executeBatch();
            connection.commit();
        } catch (SQLException e) {
            throw new IllegalStateException("could not add the ledger items: " + e.getMessage(), e);
        }
        return ids;
    }

    /** What the database holds on disk: PostgreSQL's {@code pg_database_size}. */
    long databaseBytes() {
        try (Connection connection = connect();
             ResultSet size = connection.createStatement().executeQuery("select pg_database_size('lazarus')")) {
            size.next();
            return size.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("could not read the database's size: " + e.getMessage(), e);
        }
    }

    Connection connect() throws SQLException {
        int port = database.equals("embedded") ? EMBEDDED_DB_PORT : 5432;
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/lazarus", "lazarus", "lazarus");
    }

    /** WildFly's and the broker's CPU time so far (user + system, from /proc), in milliseconds. */
    long serverCpuMillis() {
        long total = 0;
        for (Path pidFile : List.of(dir.resolve("wildfly.pid"), dir.resolve("broker/data/artemis.pid"))) {
            total += ProcessCpu.millis(pidFile);
        }
        return total;
    }

    /** CPU time of the database server (PostgreSQL's postmaster and its backends), in milliseconds. */
    long databaseCpuMillis() {
        if (postmaster < 0) {
            try (Connection connection = connect();
                 ResultSet pid = connection.createStatement().executeQuery("select pg_backend_pid()")) {
                pid.next();
                postmaster = ProcessCpu.parent(pid.getLong(1));
            } catch (SQLException e) {
                throw new IllegalStateException("could not find the database server's process: " + e.getMessage(), e);
            }
        }
        return ProcessCpu.treeMillis(postmaster);
    }

    /** CPU time of the stand-in document service the demo's fetch step calls (a third process on the same cores). */
    long documentServiceCpuMillis() {
        return ProcessCpu.millis(dir.resolve("documents.pid"));
    }

    /** CPU time of the broker alone, in milliseconds. */
    long brokerCpuMillis() {
        return ProcessCpu.millis(dir.resolve("broker/data/artemis.pid"));
    }

    /** CPU time of WildFly alone, in milliseconds. */
    long wildflyCpuMillis() {
        return ProcessCpu.millis(dir.resolve("wildfly.pid"));
    }

    /** Runs {@code artemis perf client} against this stack's broker and returns its output. */
    String perfClient(Duration duration, Duration warmup, String queue) throws IOException, InterruptedException {
        return run(Map.of(), Path.of(System.getProperty("bench.artemis.home")).resolve("bin/artemis").toString(),
                "perf", "client", "--url", "tcp://127.0.0.1:" + BROKER_PORT, "--user", "admin", "--password", "admin",
                "--persistent", "--duration", String.valueOf(duration.toSeconds()), "--warmup", String.valueOf(warmup.toSeconds()),
                "--max-pending", "100", "--message-size", "1024", "queue://" + queue);
    }

    /** Writes WildFly's threads to {@code target/bench/<database>-<name>-threads.txt} (a stall's evidence); where, or why not. */
    String threadDump(String name) {
        Path file = dir.getParent().resolve(database + "-" + name + "-threads.txt");
        try {
            Files.writeString(file, run(Map.of(), "jcmd", Files.readString(dir.resolve("wildfly.pid")).trim(), "Thread.print", "-l"));
            return file.toString();
        } catch (IOException | InterruptedException | RuntimeException e) {
            return "not written (" + e + ")";
        }
    }

    /** Starts Flight Recorder in WildFly ({@code -Dbench.jfr=true}): where the CPU goes during a phase. */
    void startRecording(String name) throws IOException, InterruptedException {
        run(Map.of(), "jcmd", Files.readString(dir.resolve("wildfly.pid")).trim(), "JFR.start", "name=" + name, "settings=profile",
                "filename=" + dir.getParent().resolve(database + "-" + name + ".jfr"));
    }

    void stopRecording(String name) throws IOException, InterruptedException {
        run(Map.of(), "jcmd", Files.readString(dir.resolve("wildfly.pid")).trim(), "JFR.stop", "name=" + name);
        PipelineBenchmark.log("Flight Recorder profile written to %s", dir.getParent().resolve(database + "-" + name + ".jfr"));
    }

    @Override
    public void close() throws IOException, InterruptedException {
        stackScript("demo-down");
    }

    private void stackScript(String... command) throws IOException, InterruptedException {
        List<String> words = new ArrayList<>(List.of("bash", "wildfly-config/stack.sh"));
        words.addAll(List.of(command));
        run(Map.of("WILDFLY_HOME", System.getProperty("bench.wildfly.home"),
                "ARTEMIS_HOME", System.getProperty("bench.artemis.home"),
                "STACK_DIR", dir.toString(),
                "BROKER_PORT", String.valueOf(BROKER_PORT),
                "CONSOLE_PORT", "8161",
                "LAZARUS_DB", database,
                "DB_PORT", String.valueOf(EMBEDDED_DB_PORT),
                "PG_DIR", System.getProperty("bench.pg.dir"),
                "WAR", System.getProperty("bench.war"),
                "JDBC_DRIVER", System.getProperty("bench.jdbc.driver")),
                words.toArray(String[]::new));
    }

    /** Runs a command in the repository, failing on a non-zero exit; returns what it printed. */
    private String run(Map<String, String> environment, String... command) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).directory(repo.toFile()).redirectErrorStream(true);
        builder.environment().putAll(environment);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes());
        if (process.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed:\n" + output);
        }
        return output;
    }
}
