package dev.lazarus.cli;

import static dev.lazarus.cli.Table.column;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code lazarus runs}: list, show, stop and retry runs ({@code /api/runs}). */
@Command(name = "runs", mixinStandardHelpOptions = true, description = "Runs: list, show, stop, retry now",
        subcommands = {RunsCommand.List.class, RunsCommand.Show.class, RunsCommand.Stop.class, RunsCommand.RetryNow.class})
final class RunsCommand {

    @Command(name = "list", mixinStandardHelpOptions = true, description = {"Lists runs, newest first (GET /api/runs)."},
        footer = {"%nExamples:",
                "  lazarus runs list --state DEAD_LETTERED --pipeline document-ingestion --limit 20",
                "  lazarus runs list --key order-4711",
                "  lazarus runs list --payload customer.id=42"})
    static final class List extends Action {

        @Option(names = "--state", paramLabel = "STATE", description = "PENDING, IN_PROGRESS, RETRYING, COMPLETED or DEAD_LETTERED")
        String state;

        @Option(names = "--dead-lettered", description = "Only dead-lettered runs")
        boolean deadLettered;

        @Option(names = "--pipeline", paramLabel = "NAME")
        String pipeline;

        @Mixin
        Filters.Search search;

        @Mixin
        Filters.Paging paging;

        @Override
        void run() {
            Query query = new Query().add("state", state).add("deadLettered", deadLettered ? "true" : null).add("pipeline", pipeline);
            String body = api().get(paging.addTo(search.addTo(query)).on("runs"));
            print(body, page -> {
                Table table = runTable();
                Json.items(page, "items").forEach(run -> addRun(table, run));
                table.print(out());
                footer(out(), page, "runs");
            });
        }
    }

    static Table runTable() {
        return new Table(column("ID", 36), column("PIPELINE", 30), column("STATE", 13), column("STEP", 24), column("REQUEUES", 8),
                column("UPDATED", 20));
    }

    static void addRun(Table table, JsonObject run) {
        table.row(Json.text(run, "id"), Json.text(run, "pipeline"), Json.text(run, "state"), Json.text(run, "currentStep"),
                Json.text(run, "requeueCount"), Json.time(run, "updatedAt"));
    }

    /** "1-50 of 312 runs" (or "of 1000+" when a search capped its count) under a page's table, so a reader knows there is more. */
    static void footer(PrintWriter out, JsonValue page, String what) {
        if (page instanceof JsonObject object && object.containsKey("total")) {
            long total = Json.number(object, "total", 0);
            // a search counts up to a cap and says so: "of 1000+"
            String counted = total + (object.containsKey("totalCapped") && object.get("totalCapped") == JsonValue.TRUE ? "+" : "");
            long offset = Json.number(object, "offset", 0);
            int shown = Json.items(page, "items").size();
            out.println(shown == 0 ? "no " + what + (offset > 0 ? " from " + (offset + 1) : "") + " (" + counted + " in all)"
                    : (offset + 1) + "-" + (offset + shown) + " of " + counted + " " + what);
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, description = {"Shows a run: its state, payload, steps and dead letter "
            + "(GET /api/runs/{id}); with --history also its dispatches and timeline (GET /api/runs/{id}/history).",
            "With --json --history it prints {\"run\": <the run>, \"history\": <its history>}.",
            "Example: lazarus runs show 3f2a...-... --history"})
    static final class Show extends Action {

        @Parameters(paramLabel = "RUN_ID")
        String id;

        @Option(names = "--history", description = "Also every dispatch of a step and the run's timeline")
        boolean history;

        @Override
        void run() {
            String body = api().get("runs/" + Api.encode(id));
            String historyBody = history ? api().get("runs/" + Api.encode(id) + "/history") : null;
            if (json()) {
                printJson(history ? "{\"run\":" + body.strip() + ",\"history\":" + historyBody.strip() + "}" : body);
                return;
            }
            JsonObject run = Json.object(body);
            printRun(out(), run);
            if (history) {
                printHistory(out(), Json.object(historyBody));
            }
        }
    }

    static void printRun(PrintWriter out, JsonObject run) {
        Table fields = new Table(column("", 12), column("", 160));
        fields.row("run", Json.text(run, "id"));
        fields.row("pipeline", Json.text(run, "pipeline"));
        fields.row("state", Json.text(run, "state") + at(Json.text(run, "currentStep")) + " (generation " + Json.text(run, "generation")
                + ", requeued " + Json.text(run, "requeueCount") + " times)");
        fields.row("created", Json.time(run, "createdAt"));
        fields.row("updated", Json.time(run, "updatedAt"));
        fields.row("finished", Json.time(run, "finishedAt"));
        fields.row("trace", Json.text(run, "traceId"));
        fields.row("payload", Json.text(run, "payload"));
        JsonObject deadLetter = Json.objectOrNull(run, "deadLetter");
        if (deadLetter != null) {
            fields.row("dead letter", Json.text(deadLetter, "id") + ": " + Json.text(deadLetter, "reason") + ", " + Json.text(deadLetter, "status")
                    + " - " + Cells.oneLine(Json.text(deadLetter, "errorMessage"), 120));
        }
        fields.lines().stream().skip(1).forEach(out::println); // a record, not a table: no header
        java.util.List<JsonObject> steps = Json.items(run, "steps");
        if (!steps.isEmpty()) {
            out.println();
            Table table = new Table(column("STEP", 24), column("GEN", 5), column("STATE", 12), column("ATTEMPTS", 8),
                    column("LAST ATTEMPT", 20), column("ERROR", 60));
            steps.forEach(step -> table.row(Json.text(step, "step"), Json.text(step, "generation"), Json.text(step, "state"),
                    Json.text(step, "attempts"), Json.time(step, "lastAttemptAt"), Json.text(step, "lastError")));
            table.print(out);
        }
    }

    private static String at(String step) {
        return step == null ? "" : " at " + step;
    }

    static void printHistory(PrintWriter out, JsonObject history) {
        java.util.List<JsonObject> dispatches = Json.items(history, "dispatches");
        if (!dispatches.isEmpty()) {
            out.println();
            Table table = new Table(column("GEN", 5), column("STEP", 24), column("ORIGIN", 14), column("STATE", 12), column("ATTEMPTS", 8),
                    column("FIRST ATTEMPT", 20), column("TOOK MS", 9), column("DEAD LETTER", 11), column("ERROR", 50));
            dispatches.forEach(d -> table.row(Json.text(d, "generation"), Json.text(d, "step"), Json.text(d, "origin"), Json.text(d, "state"),
                    Json.text(d, "attempts"), Json.time(d, "firstAttemptAt"), Json.text(d, "tookMillis"), Json.text(d, "deadLetterId"),
                    Json.text(d, "lastError")));
            table.print(out);
        }
        java.util.List<JsonObject> timeline = Json.items(history, "timeline");
        if (!timeline.isEmpty()) {
            out.println();
            Table table = new Table(column("AT", 20), column("WHAT", 16), column("STEP", 24), column("GEN", 5), column("", 100));
            timeline.forEach(e -> table.row(Json.time(e, "at"), Json.text(e, "kind"), Json.text(e, "step"), Json.text(e, "generation"),
                    Json.text(e, "text")));
            table.print(out);
        }
    }

    @Command(name = "stop", mixinStandardHelpOptions = true, description = {"Stops a live run by hand: it ends as a MANUAL dead letter "
            + "(POST /api/runs/{id}/stop; operator). A requeue of that dead letter brings it back."},
        footer = {"%nExamples:", "  lazarus runs stop 3f2a...-... --note \"the index is being rebuilt\""})
    static final class Stop extends Action {

        @Parameters(paramLabel = "RUN_ID")
        String id;

        @Option(names = "--note", required = true, paramLabel = "WHY", description = "Why (required; kept in the audit trail)")
        String note;

        @Override
        void run() {
            String body = api().post("runs/" + Api.encode(id) + "/stop", "{\"note\":" + Json.quote(note) + "}");
            print(body, run -> printRun(out(), run.asJsonObject()));
        }
    }

    @Command(name = "retry-now", mixinStandardHelpOptions = true, description = {"Retries a run waiting in its backoff at once, "
            + "instead of when the backoff ends (POST /api/runs/{id}/retry-now; operator)."},
        footer = {"%nExamples:", "  lazarus runs retry-now 3f2a...-..."})
    static final class RetryNow extends Action {

        @Parameters(paramLabel = "RUN_ID")
        String id;

        @Override
        void run() {
            String body = api().post("runs/" + Api.encode(id) + "/retry-now", "{}");
            print(body, answer -> {
                if (answer instanceof JsonObject run && run.containsKey("state")) {
                    printRun(out(), run);
                } else {
                    out().println("retrying run " + id + " now");
                }
            });
        }
    }
}
