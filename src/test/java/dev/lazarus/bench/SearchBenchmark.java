package dev.lazarus.bench;

import dev.lazarus.it.Api;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.IntFunction;

/**
 * Search by what the operator knows, over 1 000 000 runs (issue #23's target: each search under 100 ms).
 *
 * <p>Fills the stack's database with {@code bench.search.runs} runs (1 000 000) in one statement: each with a key
 * ({@code ORD-<i>}), labels (a region shared by a third, a customer shared by 10, a batch of 1 000, "vip" on 1 %), a
 * payload ({@code customer.id} a number shared by 10 runs, {@code order.id} a string) and a dead letter for every 50th run
 * (2 %, a tenth of them open). Then times each kind of search over the API as an operator would send it, {@code
 * bench.search.requests} (200) requests each with a different value, p50 and p99; prints the plan of each kind's query
 * (EXPLAIN ANALYZE of the SQL the application sends), and what the table's indexes cost a submission: the time to insert
 * 100 000 rows into a copy of {@code run_search} with and without its payload index.
 */
final class SearchBenchmark {

    private static final String PIPELINE = "document-ingestion";

    /** One kind of search: its name, the list it asks, and its query for the i-th request. */
    record Kind(String name, String list, IntFunction<String> query, int requests) {
    }

    /** What was measured. */
    record Figures(int runs, double fillSeconds, Map<String, double[]> millis, Map<String, Long> matches, List<String> plans,
                   double insertMicrosWithout, double insertMicrosWith) {

        String markdown() {
            StringBuilder md = new StringBuilder(String.format(Locale.ROOT,
                    "Search over %,d runs (2 %% dead-lettered), over the API as a viewer (`-Dbench.only=search`; filled in %.0f s)%n%n",
                    runs, fillSeconds));
            md.append("| search | matches | p50 ms | p99 ms |\n|---|---|---|---|\n");
            millis.forEach((name, p) -> md.append(String.format(Locale.ROOT, "| %s | %,d | %.1f | %.1f |%n", name, matches.get(name), p[0], p[1])));
            md.append(String.format(Locale.ROOT, "%nrun_search insert, 100 000 rows of a realistic payload: %.1f µs per row without the"
                    + " payload's GIN index, %.1f µs with it (+%.1f µs per submitted run)%n", insertMicrosWithout, insertMicrosWith,
                    insertMicrosWith - insertMicrosWithout));
            return md.toString();
        }
    }

    private SearchBenchmark() {
    }

    static Figures measure(BenchStack stack) throws Exception {
        int runs = Integer.getInteger("bench.search.runs", 1_000_000);
        int requests = Integer.getInteger("bench.search.requests", 200);
        double fill;
        List<String> plans = new ArrayList<>();
        double[] insert;
        try (Connection db = stack.connect()) {
            long start = System.nanoTime();
            fill(db, runs);
            fill = (System.nanoTime() - start) / 1e9;
            PipelineBenchmark.log("[%s] search: %,d runs filled in %.1f s", stack.database, runs, fill);
            plans.add(explain(db, "key", "select r.id from run r where r.id in (select m.run_id from run_search m where m.business_key = 'ORD-123457')"
                    + " order by r.created_at desc, r.id limit 50"));
            plans.add(explain(db, "label", "select r.id from run r where r.id in (select m.run_id from run_search m"
                    + " where lazarus_labels_contain(m.labels, 'customer:4242') = true) order by r.created_at desc, r.id limit 50"));
            plans.add(explain(db, "payload", "select r.id from run r where r.id in (select m.run_id from run_search m"
                    + " where (lazarus_payload_contains(m.payload, '{\"customer\":{\"id\":\"4242\"}}') = true"
                    + " or lazarus_payload_contains(m.payload, '{\"customer\":{\"id\":4242}}') = true)) order by r.created_at desc, r.id limit 50"));
            plans.add(explain(db, "dead letters by payload", "select d.id from dead_letter d where d.run_id in (select m.run_id from run_search m"
                    + " where (lazarus_payload_contains(m.payload, '{\"customer\":{\"id\":\"4250\"}}') = true"
                    + " or lazarus_payload_contains(m.payload, '{\"customer\":{\"id\":4250}}') = true)) order by d.created_at desc, d.id desc limit 50"));
            // a label a third of all runs carry: the page and its total (counted up to 1 000) walk the newest dead letters
            String broad = "d.run_id in (select m.run_id from run_search m where lazarus_labels_contain(m.labels, 'region:eu') = true)";
            plans.add(explain(db, "dead letters by a broad label, page", "select d.id from dead_letter d where " + broad
                    + " order by d.created_at desc, d.id desc limit 50"));
            plans.add(explain(db, "dead letters by a broad label, total", "select d.id from dead_letter d where " + broad
                    + " order by d.created_at desc, d.id desc limit 1001"));
            insert = insertCost(db);
        }
        SplittableRandom random = new SplittableRandom(23);
        int customers = Math.max(1, runs / 10);
        List<Kind> kinds = List.of(
                new Kind("runs by key", "api/runs", i -> "key=ORD-" + (1 + random.nextInt(runs)), requests),
                new Kind("runs by label (10 runs have it)", "api/runs", i -> "label=customer:" + random.nextInt(customers), requests),
                new Kind("runs by payload number field (10 runs)", "api/runs", i -> "payload.customer.id=" + random.nextInt(customers), requests),
                new Kind("runs by payload string field (1 run)", "api/runs", i -> "payload.order.id=ORD-" + (1 + random.nextInt(runs)), requests),
                new Kind("runs by key, label and payload field", "api/runs", i -> {
                    int run = 1 + random.nextInt(runs);
                    return "key=ORD-" + run + "&label=customer:" + (run % customers) + "&payload.customer.id=" + (run % customers);
                }, requests),
                new Kind("runs by label (1 000 runs), first page", "api/runs", i -> "label=batch:" + random.nextInt(Math.max(1, runs / 1000)), requests),
                new Kind("dead letters by key", "api/dead-letters", i -> "key=ORD-" + (50 * (1 + random.nextInt(runs / 50))), requests),
                new Kind("dead letters by label (10 runs)", "api/dead-letters", i -> "label=customer:" + random.nextInt(customers), requests),
                new Kind("dead letters by payload field (10 runs)", "api/dead-letters", i -> "payload.customer.id=" + random.nextInt(customers), requests),
                new Kind("runs by label a third of all runs have (region:eu), first page", "api/runs", i -> "label=region:eu", 20),
                new Kind("dead letters by label a third of all runs have", "api/dead-letters", i -> "label=region:eu", 20));
        Map<String, double[]> millis = new LinkedHashMap<>();
        Map<String, Long> matches = new LinkedHashMap<>();
        for (Kind kind : kinds) {
            for (int i = 0; i < 5; i++) {
                stack.viewer.get(kind.list() + "?" + kind.query().apply(i)).ok(); // warm-up
            }
            double[] times = new double[kind.requests()];
            long found = 0;
            for (int i = 0; i < kind.requests(); i++) {
                String query = kind.query().apply(i);
                long start = System.nanoTime();
                Api.Response response = stack.viewer.get(kind.list() + "?" + query + "&limit=50");
                times[i] = (System.nanoTime() - start) / 1e6;
                found += response.ok().json().getJsonNumber("total").longValue();
            }
            java.util.Arrays.sort(times);
            double[] p = {times[(int) Math.floor(0.5 * (times.length - 1))], times[(int) Math.ceil(0.99 * (times.length - 1))]};
            millis.put(kind.name(), p);
            matches.put(kind.name(), Math.round((double) found / kind.requests()));
            PipelineBenchmark.log("[%s] search: %s: p50 %.1f ms, p99 %.1f ms (%d matches on average)", stack.database, kind.name(), p[0], p[1],
                    matches.get(kind.name()));
        }
        plans.forEach(System.out::println);
        return new Figures(runs, fill, millis, matches, plans, insert[0], insert[1]);
    }

    /**
     * The runs, their search rows and their dead letters in one statement (data-modifying CTEs over one series): about
     * a minute for a million on this machine. Then VACUUM ANALYZE, as a table that grew over months would have been.
     */
    static void fill(Connection db, int runs) throws SQLException {
        exec(db, "with source as (select i, gen_random_uuid() as id, now() - make_interval(secs => " + runs + " - i) as at,"
                + " (i % 50 = 0) as dead, i % " + Math.max(1, runs / 10) + " as customer from generate_series(1, " + runs + ") as i),"
                + " runs as (insert into run (id, pipeline, state, current_step, generation, payload, requeue_count, created_at, updated_at,"
                + "   finished_at, version) select id, '" + PIPELINE + "', case when dead then 'DEAD_LETTERED' else 'COMPLETED' end, 'index', 1,"
                + "   '{\"customer\":{\"id\":' || customer || ',\"name\":\"customer ' || customer || '\"},\"order\":{\"id\":\"ORD-' || i"
                + "   || '\",\"lines\":' || (i % 7) || '},\"url\":\"https://example.org/doc/' || i || '\"}', 0, at, at, at, 0 from source),"
                + " searchable as (insert into run_search (run_id, pipeline, business_key, unique_key, labels, payload)"
                + "   select id, '" + PIPELINE + "', 'ORD-' || i, false, array['region:' || (array['eu','us','apac'])[i % 3 + 1],"
                + "   'customer:' || customer, 'batch:' || (i / 1000)] || case when i % 100 = 0 then array['vip'] else array[]::text[] end,"
                + "   jsonb_build_object('customer', jsonb_build_object('id', customer, 'name', 'customer ' || customer),"
                + "   'order', jsonb_build_object('id', 'ORD-' || i, 'lines', i % 7), 'url', 'https://example.org/doc/' || i) from source)"
                // ids from the application's sequence (each value past every block a node holds), not the identity
                // column's own counter, which the full suite's earlier phases' dead letters had used ids of
                + " insert into dead_letter (id, run_id, open_run_id, pipeline, step_name, queue, dead_letter_queue, reason, status, generation,"
                + "   attempts, exception_class, error_message, detected_by, created_at, updated_at, version)"
                + " select nextval('dead_letter_seq'), id, case when i % 500 = 0 then id end, '" + PIPELINE + "', 'parse', 'lazarus.document-ingestion.parse',"
                + "   'DLQ.lazarus.document-ingestion.parse', 'RETRIES_EXHAUSTED', case when i % 500 = 0 then 'PENDING' else 'RESOLVED_MANUALLY' end,"
                + "   1, 3, 'java.io.IOException', 'the document service answered 503', 'CONSUMER', at, at, 0 from source where dead");
        exec(db, "vacuum analyze run");
        exec(db, "vacuum analyze run_search");
        exec(db, "vacuum analyze dead_letter");
    }

    private static String explain(Connection db, String name, String sql) throws SQLException {
        StringBuilder plan = new StringBuilder("Plan, search by " + name + ":\n");
        try (Statement statement = db.createStatement(); ResultSet rows = statement.executeQuery("explain (analyze, costs off) " + sql)) {
            while (rows.next()) {
                plan.append("    ").append(rows.getString(1)).append('\n');
            }
        }
        return plan.toString();
    }

    /** Microseconds per row to insert 100 000 search rows into a copy of the table: without, then with its payload index. */
    private static double[] insertCost(Connection db) throws SQLException {
        String rows = "insert into run_search_copy (run_id, pipeline, business_key, labels, payload) select gen_random_uuid(), 'p',"
                + " 'ORD-' || i, array['region:eu', 'customer:' || (i % 1000)], jsonb_build_object('customer', jsonb_build_object('id', i % 1000,"
                + " 'name', 'customer ' || i), 'order', jsonb_build_object('id', 'ORD-' || i, 'lines', i % 7), 'url', 'https://example.org/doc/' || i)"
                + " from generate_series(1, 100000) as i";
        double[] micros = new double[2];
        for (int withIndex = 0; withIndex < 2; withIndex++) {
            exec(db, "drop table if exists run_search_copy");
            exec(db, "create table run_search_copy (like run_search including defaults including constraints)");
            exec(db, "alter table run_search_copy add primary key (run_id)");
            exec(db, "create index on run_search_copy (business_key, pipeline) where business_key is not null");
            exec(db, "create index on run_search_copy using gin (labels) where labels is not null");
            if (withIndex == 1) {
                exec(db, "create index on run_search_copy using gin (payload jsonb_path_ops) where payload is not null");
            }
            long start = System.nanoTime();
            exec(db, rows);
            micros[withIndex] = (System.nanoTime() - start) / 1e3 / 100_000;
        }
        exec(db, "drop table run_search_copy");
        return micros;
    }

    private static void exec(Connection db, String sql) throws SQLException {
        try (Statement statement = db.createStatement()) {
            statement.execute(sql);
        }
    }
}
