package dev.lazarus.bench;

import jakarta.json.Json;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.stream.JsonGenerator;
import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * What the pipeline benchmark measured, written three ways: {@code pipeline.json} (to compare runs), {@code
 * pipeline.md} (a table for benchmarks.md) and {@code pipeline.png} (the long run's throughput over time against
 * the relay's).
 */
final class BenchReport {

    private final Map<String, Object> settings;
    private final List<Database> databases = new ArrayList<>();
    private final Instant date = Instant.now().truncatedTo(ChronoUnit.SECONDS);

    BenchReport(Map<String, Object> settings) {
        this.settings = settings;
    }

    void add(Database database) {
        databases.add(database);
    }

    void write(Path dir) throws IOException {
        Files.writeString(dir.resolve("pipeline.json"), json());
        Files.writeString(dir.resolve("pipeline.md"), markdown());
        BitmapEncoder.saveBitmap(chart(), dir.resolve("pipeline.png").toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    private String json() {
        JsonObjectBuilder root = Json.createObjectBuilder().add("date", date.toString());
        JsonObjectBuilder settingsJson = Json.createObjectBuilder();
        settings.forEach((k, v) -> settingsJson.add(k, String.valueOf(v)));
        root.add("settings", settingsJson);
        JsonObjectBuilder all = Json.createObjectBuilder();
        for (Database d : databases) {
            JsonObjectBuilder latency = Json.createObjectBuilder();
            d.latency.forEach((name, p) -> latency.add(name, p.json()));
            var windows = Json.createArrayBuilder();
            d.longRun.windows.forEach(w -> windows.add(Json.createObjectBuilder().add("t_s", round(w.atSeconds()))
                    .add("steps_per_s", round(w.stepsPerS())).add("runs_completed", w.runsCompleted()).add("database_bytes", w.databaseBytes())));
            all.add(d.name, Json.createObjectBuilder()
                    .add("lazarus_steps_per_s", round(d.steps.perSecond()))
                    .add("bare_relay_hops_per_s", round(d.relay.perSecond()))
                    .add("raw_broker_msgs_per_s", round(d.rawBrokerMsgsPerS))
                    .add("ratio_to_relay", round(d.ratioToRelay()))
                    .add("plain_relay_hops_per_s", round(d.plainRelay.perSecond()))
                    .add("ratio_to_plain_relay", round(d.ratioToPlainRelay()))
                    .add("plain_relay_cpu_ms_per_hop", round(d.plainRelay.cpuMillisPerUnit()))
                    .add("lazarus_cpu_ms_per_step", round(d.steps.cpuMillisPerUnit()))
                    .add("lazarus_database_cpu_ms_per_step", round(d.steps.databaseCpuMillisPerUnit()))
                    .add("bare_relay_cpu_ms_per_hop", round(d.relay.cpuMillisPerUnit()))
                    .add("lazarus_broker_cpu_ms_per_step", round(d.steps.brokerCpuMillisPerUnit()))
                    .add("document_service_cpu_ms_per_step", round(d.documentServiceCpuMillisPerStep))
                    .add("bare_relay_broker_cpu_ms_per_hop", round(d.relay.brokerCpuMillisPerUnit()))
                    .add("plain_relay_broker_cpu_ms_per_hop", round(d.plainRelay.brokerCpuMillisPerUnit()))
                    .add("end_to_end_runs_per_s", round(d.endToEnd.runsPerS()))
                    .add("submissions_per_s", round(d.endToEnd.submittedPerS()))
                    .add("single_submissions_per_s", round(d.singleSubmissions.perSecond()))
                    .add("single_submission_cpu_ms", round(d.singleSubmissions.cpuMillisPerUnit()))
                    .add("single_submission_database_cpu_ms", round(d.singleSubmissions.databaseCpuMillisPerUnit()))
                    .add("single_submission_broker_cpu_ms", round(d.singleSubmissions.brokerCpuMillisPerUnit()))
                    .add("submission_to_step_cpu", round(d.submissionToStepCpu()))
                    .add("batch_submission_runs_per_s", round(d.batchSubmission.perSecond()))
                    .add("latency_ms", latency)
                    .add("dead_letter_visible_ms", d.deadLetterVisibleMillis.json())
                    .add("long_run", Json.createObjectBuilder()
                            .add("steps", d.longRun.steps)
                            .add("seconds", d.longRun.took.toSeconds())
                            .add("steps_per_s", round(d.longRun.steps / (d.longRun.took.toMillis() / 1000.0)))
                            .add("first_third_steps_per_s", round(d.longRun.thirdMean(0)))
                            .add("last_third_steps_per_s", round(d.longRun.thirdMean(2)))
                            .add("database_bytes_per_run", round(d.longRun.bytesPerRun))
                            .add("windows", windows))
                    .add("idle_cpu_percent", round(d.idleCpuPercent)));
        }
        root.add("databases", all);
        JsonObjectBuilder spike = Json.createObjectBuilder();
        for (Database d : databases) {
            if (d.xaLedgerRelay != null) {
                spike.add(d.name, Json.createObjectBuilder()
                        .add("xa_ledger_hops_per_s", round(d.xaLedgerRelay.perSecond()))
                        .add("xa_ledger_cpu_ms_per_hop", round(d.xaLedgerRelay.cpuMillisPerUnit()))
                        .add("xa_ledger_database_cpu_ms_per_hop", round(d.xaLedgerRelay.databaseCpuMillisPerUnit()))
                        .add("idempotent_ledger_hops_per_s", round(d.idempotentLedgerRelay.perSecond()))
                        .add("idempotent_ledger_cpu_ms_per_hop", round(d.idempotentLedgerRelay.cpuMillisPerUnit()))
                        .add("idempotent_ledger_database_cpu_ms_per_hop", round(d.idempotentLedgerRelay.databaseCpuMillisPerUnit())));
            }
        }
        root.add("hot_path_spike", spike);
        StringWriter text = new StringWriter();
        try (var writer = Json.createWriterFactory(Map.of(JsonGenerator.PRETTY_PRINTING, true)).createWriter(text)) {
            writer.write(root.build());
        }
        return text + "\n";
    }

    private String markdown() {
        StringBuilder md = new StringBuilder();
        md.append(String.format(Locale.ROOT, "Pipeline benchmark, %s, %s cores (`mvn -Pbench package`, settings %s)%n%n", date,
                settings.get("cores"), settings));
        md.append("| | ").append(String.join(" | ", databases.stream().map(d -> d.name).toList())).append(" |\n");
        md.append("|---|").append("---|".repeat(databases.size())).append("\n");
        row(md, "Lazarus, 3-step demo pipeline: steps/s", d -> fmt(d.steps.perSecond()));
        row(md, "bare XA relay in the same WildFly: hops/s", d -> fmt(d.relay.perSecond()));
        row(md, "**ratio_to_relay**", d -> String.format(Locale.ROOT, "**%.2f**", d.ratioToRelay()));
        row(md, "non-transacted relay (auto-acknowledge, plain send; guarantees nothing): hops/s", d -> fmt(d.plainRelay.perSecond()));
        row(md, "**ratio_to_plain_relay**", d -> String.format(Locale.ROOT, "**%.2f**", d.ratioToPlainRelay()));
        row(md, "raw broker (`artemis perf client`, persistent, 100 in flight): msg/s", d -> fmt(d.rawBrokerMsgsPerS));
        if (databases.stream().anyMatch(d -> d.xaLedgerRelay != null)) {
            row(md, "spike, the XA ledger relay (a read and one statement per hop, in the XA transaction): hops/s, CPU per hop"
                    + " WildFly + PostgreSQL", d -> d.xaLedgerRelay == null ? "" : String.format(Locale.ROOT, "%s, %.2f + %.2f ms",
                    fmt(d.xaLedgerRelay.perSecond()), d.xaLedgerRelay.cpuMillisPerUnit(), d.xaLedgerRelay.databaseCpuMillisPerUnit()));
            row(md, "spike, the idempotent ledger relay (the same, committed first; sent with a duplicate id; acknowledged last):"
                    + " hops/s, CPU per hop WildFly + PostgreSQL", d -> d.idempotentLedgerRelay == null ? "" : String.format(Locale.ROOT,
                    "%s, %.2f + %.2f ms", fmt(d.idempotentLedgerRelay.perSecond()), d.idempotentLedgerRelay.cpuMillisPerUnit(),
                    d.idempotentLedgerRelay.databaseCpuMillisPerUnit()));
        }
        row(md, "WildFly CPU per Lazarus step / per relay hop", d -> String.format(Locale.ROOT, "%.2f ms / %.2f ms",
                d.steps.cpuMillisPerUnit(), d.relay.cpuMillisPerUnit()));
        row(md, "WildFly CPU per non-transacted relay hop", d -> String.format(Locale.ROOT, "%.2f ms", d.plainRelay.cpuMillisPerUnit()));
        row(md, "broker CPU per Lazarus step / per relay hop / per non-transacted hop", d -> String.format(Locale.ROOT,
                "%.2f ms / %.2f ms / %.2f ms", d.steps.brokerCpuMillisPerUnit(), d.relay.brokerCpuMillisPerUnit(),
                d.plainRelay.brokerCpuMillisPerUnit()));
        row(md, "CPU per Lazarus step of the demo's stand-in document service (its fetch step's dependency, on the same cores)",
                d -> String.format(Locale.ROOT, "%.2f ms", d.documentServiceCpuMillisPerStep));
        row(md, "PostgreSQL CPU per Lazarus step (the relay uses none)", d -> String.format(Locale.ROOT, "%.2f ms",
                d.steps.databaseCpuMillisPerUnit()));
        row(md, "end to end, submitting while running: runs/s (submissions alone)", d -> String.format(Locale.ROOT, "%s (%s)",
                fmt(d.endToEnd.runsPerS()), fmt(d.endToEnd.submittedPerS())));
        row(md, "single submissions (`POST /api/runs`, 8 clients, nothing consumed meanwhile): runs/s", d -> fmt(d.singleSubmissions.perSecond()));
        row(md, "CPU per single submission: WildFly + PostgreSQL + broker (**in steps' worth**)", d -> String.format(Locale.ROOT,
                "%.2f + %.2f + %.2f ms (**%.2f**)", d.singleSubmissions.cpuMillisPerUnit(), d.singleSubmissions.databaseCpuMillisPerUnit(),
                d.singleSubmissions.brokerCpuMillisPerUnit(), d.submissionToStepCpu()));
        row(md, "batch submission (`POST /api/runs/batch`, 1 000 runs each, 2 clients): runs/s", d -> fmt(d.batchSubmission.perSecond()));
        for (String name : databases.isEmpty() ? List.<String>of() : databases.get(0).latency.keySet()) {
            row(md, "latency p50 / p95 / p99 at half capacity, " + name.replace('_', ' ') + " (ms)",
                    d -> d.latency.containsKey(name) ? d.latency.get(name).toString() : "");
        }
        row(md, "final failed delivery → dead letter visible over the API, p50 / p95 / max (ms)",
                d -> d.deadLetterVisibleMillis.toString());
        row(md, "long run: steps, time", d -> String.format(Locale.ROOT, "%,d in %d s", d.longRun.steps, d.longRun.took.toSeconds()));
        row(md, "long run: steps/s in its first / last third", d -> String.format(Locale.ROOT, "%s / %s",
                fmt(d.longRun.thirdMean(0)), fmt(d.longRun.thirdMean(2))));
        row(md, "long run: database growth per run", d -> String.format(Locale.ROOT, "%,.0f bytes", d.longRun.bytesPerRun));
        row(md, "idle WildFly after the long run: CPU", d -> String.format(Locale.ROOT, "%.1f %% of a core", d.idleCpuPercent));
        for (Database d : databases) {
            if (d.search != null) {
                md.append("\n").append(d.name).append(": ").append(d.search.markdown());
            }
        }
        return md.toString();
    }

    private void row(StringBuilder md, String label, java.util.function.Function<Database, String> cell) {
        md.append("| ").append(label).append(" | ");
        md.append(String.join(" | ", databases.stream().map(cell).toList())).append(" |\n");
    }

    private XYChart chart() {
        XYChart chart = new XYChartBuilder().width(900).height(500)
                .title("Lazarus long run: steps/s over time (dashed: the bare relay's hops/s)")
                .xAxisTitle("seconds").yAxisTitle("steps/s").build();
        chart.getStyler().setMarkerSize(4);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setYAxisDecimalPattern("#,##0");
        chart.getStyler().setXAxisDecimalPattern("#,##0");
        chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideSE);
        Color[] colours = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c)};
        int i = 0;
        for (Database d : databases) {
            Color colour = colours[i++ % colours.length];
            List<Double> x = d.longRun.windows.stream().map(Window::atSeconds).toList();
            List<Double> y = d.longRun.windows.stream().map(Window::stepsPerS).toList();
            if (x.isEmpty()) {
                continue;
            }
            XYSeries series = chart.addSeries("Lazarus, " + d.name, x, y);
            series.setLineColor(colour);
            series.setMarkerColor(colour);
            XYSeries relay = chart.addSeries("bare relay, " + d.name, List.of(0.0, x.get(x.size() - 1)),
                    List.of(d.relay.perSecond(), d.relay.perSecond()));
            relay.setLineColor(colour);
            relay.setMarker(SeriesMarkers.NONE);
            relay.setLineStyle(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 6f}, 0f));
        }
        return chart;
    }

    private static String fmt(double value) {
        return String.format(Locale.ROOT, "%,.0f", value);
    }

    private static double round(double value) {
        return Math.round(value * 100) / 100.0;
    }

    /** Everything measured on one database's stack. */
    static final class Database {
        final String name;
        double rawBrokerMsgsPerS;
        Rate relay;
        /** The same three hops without a transaction: the floor of a JMS hop here. */
        Rate plainRelay;
        /** The hot path's spike (with -Dbench.spike=true), else null. */
        Rate xaLedgerRelay;
        Rate idempotentLedgerRelay;
        Rate steps;
        /** CPU the demo's stand-in document service used per step (the fetch step calls it; nothing else does). */
        double documentServiceCpuMillisPerStep;
        /** The step phase's runs, submitted in batches of 1 000: runs per second. */
        Rate batchSubmission;
        /** Single submissions (POST /api/runs), nothing consumed meanwhile: runs per second and CPU per submission. */
        Rate singleSubmissions;
        EndToEnd endToEnd;
        Map<String, Percentiles> latency;
        Percentiles deadLetterVisibleMillis;
        LongRun longRun;
        double idleCpuPercent;
        /** The search phase (issue #23): searches over a million runs. */
        SearchBenchmark.Figures search;

        Database(String name) {
            this.name = name;
        }

        double ratioToRelay() {
            return steps.perSecond() / relay.perSecond();
        }

        double ratioToPlainRelay() {
            return steps.perSecond() / plainRelay.perSecond();
        }

        /** CPU of one single submission (WildFly and PostgreSQL) in steps' worth: at most 1 is the target. */
        double submissionToStepCpu() {
            return (singleSubmissions.cpuMillisPerUnit() + singleSubmissions.databaseCpuMillisPerUnit())
                    / (steps.cpuMillisPerUnit() + steps.databaseCpuMillisPerUnit());
        }
    }

    /** Units of work (steps, hops) in a time, and the WildFly, database server and broker CPU they took (0: not measured). */
    record Rate(long units, Duration took, long cpuMillis, long databaseCpuMillis, long brokerCpuMillis) {

        Rate(long units, Duration took, long cpuMillis, long databaseCpuMillis) {
            this(units, took, cpuMillis, databaseCpuMillis, 0);
        }

        double brokerCpuMillisPerUnit() {
            return brokerCpuMillis / (double) units;
        }

        double databaseCpuMillisPerUnit() {
            return databaseCpuMillis / (double) units;
        }

        double perSecond() {
            return units / (took.toMillis() / 1000.0);
        }

        double cpuMillisPerUnit() {
            return cpuMillis / (double) units;
        }
    }

    record EndToEnd(int runs, Duration submitting, Duration took) {
        double runsPerS() {
            return runs / (took.toMillis() / 1000.0);
        }

        double submittedPerS() {
            return runs / (submitting.toMillis() / 1000.0);
        }
    }

    record Percentiles(int samples, double p50, double p95, double p99, double max) {
        static Percentiles of(List<Double> values) {
            List<Double> sorted = values.stream().sorted().toList();
            return new Percentiles(sorted.size(), at(sorted, 0.50), at(sorted, 0.95), at(sorted, 0.99), sorted.get(sorted.size() - 1));
        }

        private static double at(List<Double> sorted, double quantile) {
            return sorted.get((int) Math.min(sorted.size() - 1, Math.ceil(quantile * sorted.size()) - 1));
        }

        JsonObjectBuilder json() {
            return Json.createObjectBuilder().add("samples", samples).add("p50", round(p50)).add("p95", round(p95))
                    .add("p99", round(p99)).add("max", round(max));
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%.0f / %.0f / %.0f", p50, p95, samples >= 100 ? p99 : max);
        }
    }

    record Window(double atSeconds, double stepsPerS, int runsCompleted, long databaseBytes) {
    }

    static final class LongRun {
        final long steps;
        final List<Window> windows = new ArrayList<>();
        Duration took = Duration.ZERO;
        double bytesPerRun;

        LongRun(long steps) {
            this.steps = steps;
        }

        /** Mean steps/s over the {@code third}-th third (0, 1, 2) of the windows, the last partial one left out. */
        double thirdMean(int third) {
            List<Window> full = windows.size() > 1 ? windows.subList(0, windows.size() - 1) : windows;
            int size = full.size();
            if (size == 0) {
                return 0;
            }
            int from = size * third / 3;
            int to = Math.max(from + 1, size * (third + 1) / 3);
            return full.subList(from, Math.min(to, size)).stream().mapToDouble(Window::stepsPerS).average().orElse(0);
        }
    }
}
