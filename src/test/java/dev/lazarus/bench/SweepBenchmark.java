package dev.lazarus.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import org.flywaydb.core.Flyway;

/**
 * How the sweeper's detection cost grows: with the stale runs, not with all runs.
 *
 * <p>In a scratch schema of a PostgreSQL database it builds the real schema (the Flyway migrations), fills
 * {@code run} with N runs of which 1 % are stale (a third each stuck in progress, waiting, unrecovered) and
 * 1 % are live and healthy, the rest completed, then times the sweeper's three candidate queries (the SQL
 * {@code StaleRuns.candidates} issues): all stale runs, and one batch of 500. It then repeats them
 *   (a) without the sweeper's indexes, in the same run, as the baseline a missing index would give, and
 *   (b) after deleting 90 % of the completed runs, to show the cost does not follow the table's size.
 * Prints the figures and one query plan. Configure with -Dbench.url, -Dbench.user, -Dbench.password,
 * -Dbench.runs (default 1 000 000).
 */
public final class SweepBenchmark {

    private static final String SCHEMA = "lazarus_bench";
    private static final int BATCH = 500;
    private static final int REPEATS = 7;
    private static final String[][] KINDS = {
            {"IN_PROGRESS", "heartbeat_at"}, {"PENDING", "updated_at"}, {"RETRYING", "updated_at"}};

    private SweepBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        String url = System.getProperty("bench.url", "jdbc:postgresql://127.0.0.1:5432/lazarus");
        String user = System.getProperty("bench.user", "lazarus");
        String password = System.getProperty("bench.password", "lazarus");
        int runs = Integer.getInteger("bench.runs", 1_000_000);
        int stale = runs / 100;
        String app = System.getProperty("bench.app");
        if (app != null) {
            sweepThroughTheApplication(app, url, user, password, runs, stale);
            return;
        }

        Flyway.configure().dataSource(url, user, password).schemas(SCHEMA).cleanDisabled(false)
                .locations("classpath:db/migration").load().clean();
        Flyway.configure().dataSource(url, user, password).schemas(SCHEMA).locations("classpath:db/migration").load().migrate();

        try (Connection db = DriverManager.getConnection(url, user, password)) {
            db.setSchema(SCHEMA);
            Instant now = Instant.now();
            long fillStart = System.nanoTime();
            fill(db, runs, stale, now);
            System.out.printf(Locale.ROOT, "Filled %,d runs (%,d stale, %,d live and healthy) in %.1f s%n", runs, stale, stale,
                    (System.nanoTime() - fillStart) / 1e9);
            analyze(db);

            Instant cutoff = now.minus(Duration.ofMinutes(5));
            Result indexed = measure(db, cutoff);
            System.out.println();
            System.out.println("Plan of the stuck-in-progress query, all candidates:");
            explain(db, cutoff);

            exec(db, "drop index run_state_heartbeat");
            exec(db, "drop index run_state_updated");
            exec(db, "drop index run_state_created");
            analyze(db);
            Result withoutIndexes = measure(db, cutoff);
            exec(db, "create index run_state_heartbeat on run (state, heartbeat_at)");
            exec(db, "create index run_state_updated on run (state, updated_at)");
            exec(db, "create index run_state_created on run (state, created_at)");

            int deleted = db.createStatement().executeUpdate("delete from run where state = 'COMPLETED' and id in"
                    + " (select id from run where state = 'COMPLETED' limit " + (int) ((runs - 2L * stale) * 0.9) + ")");
            exec(db, "vacuum analyze run");
            Result smaller = measure(db, cutoff);

            System.out.println();
            System.out.printf(Locale.ROOT, "%-44s %12s %12s %10s%n", "sweep detection (3 queries), median of " + REPEATS,
                    "all stale", "one batch", "stale found");
            print(String.format(Locale.ROOT, "%,d runs, indexed (as shipped)", runs), indexed);
            print(String.format(Locale.ROOT, "%,d runs, without the sweep indexes", runs), withoutIndexes);
            print(String.format(Locale.ROOT, "%,d runs (%,d completed deleted), indexed", runs - deleted, deleted), smaller);
            System.out.printf(Locale.ROOT, "%nRatios: without indexes / indexed = %.1fx (all stale), %.1fx (one batch);"
                            + " %,d runs / %,d runs = %.2fx (all stale)%n",
                    withoutIndexes.allMillis / indexed.allMillis, withoutIndexes.batchMillis / indexed.batchMillis,
                    runs, runs - deleted, indexed.allMillis / smaller.allMillis);
        }
    }

    /**
     * The whole sweep as the product runs it: fills the running application's own database (PostgreSQL,
     * schema public) with the same mix, then asks the application to sweep (POST /api/staleness/sweep) until
     * nothing stale is left, and reports each sweep as the application measured it.
     */
    private static void sweepThroughTheApplication(String app, String url, String user, String password, int runs, int stale)
            throws Exception {
        long postmaster;
        try (Connection db = DriverManager.getConnection(url, user, password)) {
            long fillStart = System.nanoTime();
            fill(db, runs, stale, Instant.now());
            // vacuumed as well: otherwise the autovacuum the million inserts set off runs during the sweeps, and they
            // measure it; an outage does not start with a million fresh rows
            exec(db, "vacuum analyze run");
            System.out.printf(Locale.ROOT, "Added %,d runs (%,d stale) to the application's database in %.1f s%n", runs, stale,
                    (System.nanoTime() - fillStart) / 1e9);
            try (ResultSet pid = db.createStatement().executeQuery("select pg_backend_pid()")) {
                pid.next();
                postmaster = ProcessCpu.parent(pid.getLong(1));
            }
        }
        long wildfly = ProcessCpu.wildfly();
        long wildflyCpuBefore = ProcessCpu.millis(wildfly);
        long postgresCpuBefore = ProcessCpu.treeMillis(postmaster);
        double load = Double.parseDouble(System.getProperty("bench.sweep.load", "30"));
        dev.lazarus.it.Api operator = api(app, System.getProperty("bench.operator", "operator:operator-pw"));
        StepLoad baseline = null;
        StepLoad during = null;
        if (load > 0) {
            // the same steady load twice: first with nothing to sweep beside it, then while the stale runs are swept
            System.out.printf(Locale.ROOT, "Baseline: %.0f runs/s for 20 s, nothing swept meanwhile%n", load);
            baseline = StepLoad.start(operator, load);
            Thread.sleep(20_000);
            baseline.stop();
            wildflyCpuBefore = ProcessCpu.millis(wildfly);
            postgresCpuBefore = ProcessCpu.treeMillis(postmaster);
            during = StepLoad.start(operator, load);
            Thread.sleep(3_000); // the load is running before the sweep starts
        }
        long start = System.nanoTime();
        int[] swept = sweepAll(app, operator);
        double seconds = (System.nanoTime() - start) / 1e9;
        double wildflyCpu = (ProcessCpu.millis(wildfly) - wildflyCpuBefore) / 1000.0;
        double postgresCpu = (ProcessCpu.treeMillis(postmaster) - postgresCpuBefore) / 1000.0;
        int total = swept[1];
        System.out.printf(Locale.ROOT, "All stale runs dead-lettered by %d sweeps in %.1f s%n", swept[0], seconds);
        System.out.printf(Locale.ROOT, "CPU: WildFly %.2f s%s, PostgreSQL %.2f s; per dead letter %.3f + %.3f ms (%,d dead letters)%s%n",
                wildflyCpu, wildfly < 0 ? " (not found: -Dbench.wildfly-pid)" : "", postgresCpu,
                total == 0 ? 0 : wildflyCpu * 1000 / total, total == 0 ? 0 : postgresCpu * 1000 / total, total,
                load > 0 ? " (the steady load's steps included)" : "");
        if (during != null) {
            Thread.sleep(2_000);
            during.stop();
            dev.lazarus.it.Api viewer = api(app, System.getProperty("bench.viewer", "viewer:viewer-pw"));
            BenchReport.Percentiles quiet = baseline.stepLatencies(viewer, null, null);
            // only the runs submitted while the sweeps ran, from the first sweep's start to the last one's end
            Instant sweptFrom = during.startedAt.plusSeconds(3);
            BenchReport.Percentiles busy = during.stepLatencies(viewer, sweptFrom, sweptFrom.plusMillis((long) (seconds * 1000)));
            System.out.printf(Locale.ROOT, "Step latency at %.0f runs/s, p50 / p95 / p99 (ms): without a sweep %s; while sweeping %s"
                    + " (%d steps); p99 while sweeping / without: %.2f%n", load, quiet, busy, busy.samples(), busy.p99() / quiet.p99());
        }
    }

    /** Sweeps (POST /api/staleness/sweep) until a sweep finds nothing to dead-letter; how many sweeps, and dead letters. */
    private static int[] sweepAll(String app, dev.lazarus.it.Api operator) throws Exception {
        int sweeps = 0;
        int deadLettered;
        int total = 0;
        do {
            dev.lazarus.it.Api.Response response;
            while ((response = operator.post("api/staleness/sweep", "")).status() == 409) {
                Thread.sleep(50); // the timer's sweep is running on this node (one at a time): ask again when it is done
            }
            if (response.status() != 200) {
                throw new IllegalStateException("sweep answered " + response.status() + ": " + response.body());
            }
            jakarta.json.JsonObject report = response.json();
            deadLettered = report.getJsonObject("deadLettered").values().stream()
                    .mapToInt(v -> ((jakarta.json.JsonNumber) v).intValue()).sum();
            sweeps++;
            total += deadLettered;
            System.out.printf(Locale.ROOT, "sweep %d: %d candidates, %d dead-lettered, took %s%n", sweeps,
                    report.getInt("candidates"), deadLettered, report.getString("took"));
        } while (deadLettered > 0);
        return new int[] {sweeps, total};
    }

    private static dev.lazarus.it.Api api(String app, String credentials) throws java.net.MalformedURLException {
        String[] userAndPassword = credentials.split(":", 2);
        return new dev.lazarus.it.Api(java.net.URI.create(app.endsWith("/") ? app : app + "/").toURL(), userAndPassword[0],
                userAndPassword[1]);
    }

    /** Quick demo runs submitted at a steady rate, and afterwards each one's steps' latencies (from the API's timestamps). */
    private static final class StepLoad {
        private final java.util.concurrent.ScheduledExecutorService pacer = java.util.concurrent.Executors.newScheduledThreadPool(4);
        private final java.util.List<String[]> runs = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        private final Instant startedAt = Instant.now();

        static StepLoad start(dev.lazarus.it.Api operator, double perSecond) {
            StepLoad load = new StepLoad();
            java.util.concurrent.atomic.AtomicLong n = new java.util.concurrent.atomic.AtomicLong();
            load.pacer.scheduleAtFixedRate(() -> {
                try {
                    String at = Instant.now().toString();
                    load.runs.add(new String[] {operator.startRun("{\"url\":\"https://bench.example.org/sweep-load-"
                            + n.incrementAndGet() + ".html\"}"), at});
                } catch (RuntimeException e) {
                    System.out.println("a load submission failed: " + e);
                }
            }, 0, (long) (1_000_000 / perSecond), java.util.concurrent.TimeUnit.MICROSECONDS);
            return load;
        }

        void stop() throws InterruptedException {
            pacer.shutdown();
            pacer.awaitTermination(1, java.util.concurrent.TimeUnit.MINUTES);
        }

        /**
         * Each step's latency, from its dispatch (the run's creation, or the step before's end) to its end, of the runs
         * submitted between {@code from} and {@code to} (null: all), once they have all completed.
         */
        BenchReport.Percentiles stepLatencies(dev.lazarus.it.Api viewer, Instant from, Instant to) throws InterruptedException {
            java.util.List<Double> samples = new java.util.ArrayList<>();
            for (String[] run : new java.util.ArrayList<>(runs)) {
                Instant submitted = Instant.parse(run[1]);
                if (from != null && (submitted.isBefore(from) || submitted.isAfter(to))) {
                    continue;
                }
                jakarta.json.JsonObject view = viewer.run(run[0]);
                for (int wait = 0; !"COMPLETED".equals(view.getString("state")) && wait < 600; wait++) {
                    Thread.sleep(100);
                    view = viewer.run(run[0]);
                }
                Instant previous = Instant.parse(view.getString("createdAt"));
                for (jakarta.json.JsonValue value : view.getJsonArray("steps")) {
                    Instant finished = Instant.parse(value.asJsonObject().getString("finishedAt"));
                    samples.add(Duration.between(previous, finished).toNanos() / 1e6);
                    previous = finished;
                }
            }
            return BenchReport.Percentiles.of(samples);
        }
    }

    private static void fill(Connection db, int runs, int stale, Instant now) throws SQLException {
        int third = stale / 3;
        // rows 1..stale are stale (an hour old), the next 'stale' rows live and fresh, the rest completed
        String sql = "insert into run (id, pipeline, state, current_step, generation, payload, requeue_count,"
                + " created_at, updated_at, heartbeat_at, finished_at, version)"
                + " select gen_random_uuid(), 'document-ingestion',"
                + " case when g <= ? then 'IN_PROGRESS' when g <= ? then 'PENDING' when g <= ? then 'RETRYING'"
                + "      when g <= ? then (array['IN_PROGRESS','PENDING','RETRYING'])[1 + g % 3] else 'COMPLETED' end,"
                + " 'parse', 1, '{}', 0,"
                + " ?::timestamptz - make_interval(days => g % 90),"
                + " case when g <= ? then ?::timestamptz - interval '1 hour'"
                + "      when g <= ? then ?::timestamptz - make_interval(secs => g % 60)"
                + "      else ?::timestamptz - make_interval(days => g % 90) end,"
                + " case when g <= ? and g <= ? then ?::timestamptz - interval '1 hour'"
                + "      when g > ? and g <= ? and g % 3 = 0 then ?::timestamptz - make_interval(secs => g % 60) else null end,"
                + " null, 0 from generate_series(1, ?) as g";
        try (PreparedStatement insert = db.prepareStatement(sql)) {
            Timestamp at = Timestamp.from(now);
            int i = 1;
            insert.setInt(i++, third);
            insert.setInt(i++, 2 * third);
            insert.setInt(i++, stale);
            insert.setInt(i++, 2 * stale);
            insert.setTimestamp(i++, at);
            insert.setInt(i++, stale);
            insert.setTimestamp(i++, at);
            insert.setInt(i++, 2 * stale);
            insert.setTimestamp(i++, at);
            insert.setTimestamp(i++, at);
            insert.setInt(i++, stale);
            insert.setInt(i++, third);
            insert.setTimestamp(i++, at);
            insert.setInt(i++, stale);
            insert.setInt(i++, 2 * stale);
            insert.setTimestamp(i++, at);
            insert.setInt(i, runs);
            insert.executeUpdate();
        }
    }

    private record Result(double allMillis, double batchMillis, int found) {
    }

    private static Result measure(Connection db, Instant cutoff) throws SQLException {
        double[] all = new double[REPEATS];
        double[] batch = new double[REPEATS];
        int found = 0;
        for (int r = 0; r < REPEATS; r++) {
            long start = System.nanoTime();
            found = 0;
            for (String[] kind : KINDS) {
                found += candidates(db, kind, cutoff, Integer.MAX_VALUE);
            }
            all[r] = (System.nanoTime() - start) / 1e6;
            start = System.nanoTime();
            for (String[] kind : KINDS) {
                candidates(db, kind, cutoff, BATCH);
            }
            batch[r] = (System.nanoTime() - start) / 1e6;
        }
        return new Result(median(all), median(batch), found);
    }

    /** The query StaleRuns.candidates issues (Hibernate renders setMaxResults as "fetch first ? rows only"). */
    private static int candidates(Connection db, String[] kind, Instant cutoff, int limit) throws SQLException {
        String sql = "select r.id from run r where r.state = ? and r." + kind[1] + " < ? order by r." + kind[1]
                + (limit == Integer.MAX_VALUE ? "" : " fetch first ? rows only");
        try (PreparedStatement query = db.prepareStatement(sql)) {
            query.setString(1, kind[0]);
            query.setTimestamp(2, Timestamp.from(cutoff));
            if (limit != Integer.MAX_VALUE) {
                query.setInt(3, limit);
            }
            int rows = 0;
            try (ResultSet result = query.executeQuery()) {
                while (result.next()) {
                    rows++;
                }
            }
            return rows;
        }
    }

    private static void explain(Connection db, Instant cutoff) throws SQLException {
        try (PreparedStatement query = db.prepareStatement("explain (analyze, buffers) select r.id from run r"
                + " where r.state = 'IN_PROGRESS' and r.heartbeat_at < ? order by r.heartbeat_at")) {
            query.setTimestamp(1, Timestamp.from(cutoff));
            try (ResultSet plan = query.executeQuery()) {
                while (plan.next()) {
                    System.out.println("  " + plan.getString(1));
                }
            }
        }
    }

    private static void print(String label, Result result) {
        System.out.printf(Locale.ROOT, "%-44s %9.1f ms %9.1f ms %,10d%n", label, result.allMillis, result.batchMillis, result.found);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static void analyze(Connection db) throws SQLException {
        exec(db, "analyze run");
    }

    private static void exec(Connection db, String sql) throws SQLException {
        try (Statement statement = db.createStatement()) {
            statement.execute(sql);
        }
    }
}
