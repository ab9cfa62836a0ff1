package dev.lazarus.cli;

import static dev.lazarus.cli.Table.column;

import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code lazarus dead-letters}: find, read and act on dead letters ({@code /api/dead-letters}). */
@Command(name = "dead-letters", mixinStandardHelpOptions = true,
        description = "Dead letters: list, show, requeue, resolve, discard, recreate, causes",
        subcommands = {DeadLettersCommand.List.class, DeadLettersCommand.Show.class, DeadLettersCommand.Requeue.class,
                DeadLettersCommand.Resolve.class, DeadLettersCommand.Discard.class, DeadLettersCommand.Recreate.class,
                DeadLettersCommand.Causes.class})
final class DeadLettersCommand {

    @Command(name = "list", mixinStandardHelpOptions = true, description = {"Lists dead letters, newest first (GET /api/dead-letters)."},
        footer = {"%nExamples:",
                "  lazarus dead-letters list --reason RETRIES_EXHAUSTED --status OPEN --pipeline document-ingestion --since 2h",
                "  lazarus dead-letters list --json --cause 1a2b3c4d | jq -r '.items[].id'"})
    static final class List extends Action {

        @Mixin
        Filters.DeadLetterFilter filter;

        @Option(names = "--cause", paramLabel = "CAUSE", description = "One group of causes (a cause from 'dead-letters causes')")
        String cause;

        @Mixin
        Filters.Search search;

        @Mixin
        Filters.Paging paging;

        @Override
        void run() {
            Query query = paging.addTo(search.addTo(filter.addTo(new Query()).add("cause", cause)));
            String body = api().get(query.on("dead-letters"));
            print(body, page -> {
                Table table = new Table(column("ID", 10), column("REASON", 19), column("STATUS", 17), column("PIPELINE", 24),
                        column("STEP", 20), column("RUN", 36), column("ATTEMPTS", 8), column("CREATED", 20), column("ERROR", 60));
                Json.items(page, "items").forEach(d -> table.row(Json.text(d, "id"), Json.text(d, "reason"), Json.text(d, "status"),
                        Json.text(d, "pipeline"), Json.text(d, "step"), Json.text(d, "runId"), Json.text(d, "attempts"),
                        Json.time(d, "createdAt"), Json.text(d, "errorMessage")));
                table.print(out());
                RunsCommand.footer(out(), page, "dead letters");
            });
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, description = {"Shows a dead letter in full: its error, its stack trace's "
            + "start, its run and its audit trail (GET /api/dead-letters/{id}).", "Example: lazarus dead-letters show 42"})
    static final class Show extends Action {

        @Parameters(paramLabel = "ID")
        long id;

        @Override
        void run() {
            print(api().get("dead-letters/" + id), d -> printDeadLetter(out(), d.asJsonObject(), true));
        }
    }

    static void printDeadLetter(PrintWriter out, JsonObject d, boolean full) {
        Table fields = new Table(column("", 12), column("", 160));
        fields.row("dead letter", Json.text(d, "id"));
        fields.row("reason", Json.text(d, "reason") + " (" + Json.text(d, "reasonLabel") + ", " + Json.text(d, "severity") + ")");
        fields.row("status", Json.text(d, "status"));
        fields.row("run", Json.text(d, "runId"));
        fields.row("step", Json.text(d, "pipeline") + " / " + Json.text(d, "step") + "  (queue " + Json.text(d, "queue") + ", attempts "
                + Json.text(d, "attempts") + ")");
        fields.row("created", Json.time(d, "createdAt") + " by " + Json.text(d, "detectedBy"));
        fields.row("exception", Json.text(d, "exceptionClass"));
        fields.row("error", Json.text(d, "errorMessage"));
        fields.row("cause", Json.text(d, "cause"));
        if (Json.text(d, "rootCause") != null) {
            fields.row("root cause", Json.text(d, "rootCause"));
        }
        if (Json.text(d, "closedBy") != null) {
            fields.row("closed", Json.time(d, "closedAt") + " by " + Json.text(d, "closedBy"));
        }
        if (Json.text(d, "requeuedBy") != null) {
            fields.row("requeued", Json.time(d, "requeuedAt") + " by " + Json.text(d, "requeuedBy") + " (" + Json.text(d, "requeueMethod") + ")");
        }
        fields.lines().stream().skip(1).forEach(out::println);
        String stack = Json.text(d, "stackTrace");
        if (full && stack != null) {
            out.println();
            stack.lines().limit(8).forEach(line -> out.println("  " + Cells.oneLine(line, 160)));
        }
        java.util.List<JsonObject> trail = Json.items(d, "history");
        if (full && !trail.isEmpty()) {
            out.println();
            Table table = new Table(column("AT", 20), column("WHO", 16), column("ACTION", 18), column("FROM", 17), column("TO", 17),
                    column("NOTE", 60));
            trail.forEach(e -> table.row(Json.time(e, "at"), Json.text(e, "actor"), Json.text(e, "action"), Json.text(e, "fromStatus"),
                    Json.text(e, "toStatus"), Json.text(e, "note")));
            table.print(out);
        }
    }

    /** Prints what an action left: the dead letter as it now is (or the JSON). */
    abstract static class Act extends Action {

        @Parameters(paramLabel = "ID", description = "The dead letter's id")
        long id;

        void post(String action, String body) {
            print(api().post("dead-letters/" + id + "/" + action, body), answer -> {
                if (answer instanceof JsonObject d && d.containsKey("reason")) {
                    printDeadLetter(out(), d, false);
                } else {
                    printJson(answer.toString());
                }
            });
        }
    }

    @Command(name = "requeue", mixinStandardHelpOptions = true, description = {"Requeues a dead letter: its step runs again "
            + "(POST /api/dead-letters/{id}/requeue; operator). With --payload-file the run's payload is replaced first."},
        footer = {"%nExamples:",
                "  lazarus dead-letters requeue 42",
                "  lazarus dead-letters requeue 42 --payload-file fixed.json --note \"url fixed\""})
    static final class Requeue extends Act {

        @Option(names = "--payload-file", paramLabel = "FILE", description = "A JSON object to run the step with instead (- reads stdin)")
        Path payloadFile;

        @Option(names = "--note", paramLabel = "WHY", description = "Why (with --payload-file)")
        String note;

        @Override
        void run() {
            JsonObjectBuilder body = Json.JSON.createObjectBuilder();
            if (payloadFile != null) {
                body.add("payload", payload(payloadFile));
            }
            if (note != null) {
                body.add("note", note);
            }
            post("requeue", body.build().toString());
        }
    }

    @Command(name = "resolve", mixinStandardHelpOptions = true, description = {"Closes a dead letter as resolved by hand "
            + "(POST /api/dead-letters/{id}/resolve; operator)."},
        footer = {"%nExamples:", "  lazarus dead-letters resolve 42 --root-cause BAD_DATA --note \"customer re-sent the order\""})
    static final class Resolve extends Act {

        @Option(names = "--note", paramLabel = "WHAT", description = "What was done")
        String note;

        @Option(names = "--root-cause", paramLabel = "CAUSE", description = "CODE_DEFECT, BAD_DATA, DEPENDENCY, CONFIGURATION or OTHER")
        String rootCause;

        @Override
        void run() {
            JsonObjectBuilder body = Json.JSON.createObjectBuilder();
            if (note != null) {
                body.add("note", note);
            }
            if (rootCause != null) {
                body.add("rootCause", rootCause);
            }
            post("resolve", body.build().toString());
        }
    }

    @Command(name = "discard", mixinStandardHelpOptions = true, description = {"Closes a dead letter as not worth bringing back; "
            + "the evidence is kept (POST /api/dead-letters/{id}/discard; operator)."},
        footer = {"%nExamples:", "  lazarus dead-letters discard 42 --note \"duplicate of 41\""})
    static final class Discard extends Act {

        @Option(names = "--note", paramLabel = "WHY")
        String note;

        @Override
        void run() {
            post("discard", note == null ? "{}" : "{\"note\":" + Json.quote(note) + "}");
        }
    }

    @Command(name = "recreate", mixinStandardHelpOptions = true, description = {"Starts a new run of the dead letter's pipeline with "
            + "the same payload, or the one in --payload-file; the two are linked both ways "
            + "(POST /api/dead-letters/{id}/recreate; operator)."},
        footer = {"%nExamples:", "  lazarus dead-letters recreate 42 --payload-file fixed.json"})
    static final class Recreate extends Act {

        @Option(names = "--payload-file", paramLabel = "FILE", description = "A JSON object to start the new run with (- reads stdin)")
        Path payloadFile;

        @Override
        void run() {
            String body = payloadFile == null ? "{}" : Json.JSON.createObjectBuilder().add("payload", payload(payloadFile)).build().toString();
            print(api().post("dead-letters/" + id + "/recreate", body), answer -> {
                if (answer instanceof JsonObject run && run.containsKey("state") && run.containsKey("pipeline")) {
                    out().println("recreated dead letter " + id + " as run " + Json.text(run, "id") + " (" + Json.text(run, "state") + ")");
                } else {
                    printJson(answer.toString());
                }
            });
        }
    }

    @Command(name = "causes", mixinStandardHelpOptions = true, description = {"Groups dead letters by cause (exception and where it "
            + "was thrown), the largest group first (GET /api/dead-letters/causes)."},
        footer = {"%nExamples:", "  lazarus dead-letters causes --status OPEN --since 1d"})
    static final class Causes extends Action {

        @Mixin
        Filters.DeadLetterFilter filter;

        @Override
        void run() {
            String body = api().get(filter.addTo(new Query()).on("dead-letters/causes"));
            print(body, causes -> {
                Table table = new Table(column("CAUSE", 40), column("COUNT", 7), column("OPEN", 7), column("REASON", 19),
                        column("EXCEPTION", 40), column("WHERE", 50), column("EXAMPLE", 10), column("ERROR", 50));
                Json.items(causes, "groups").forEach(c -> table.row(Json.text(c, "cause"), Json.text(c, "count"), Json.text(c, "open"),
                        Json.text(c, "reason"), Json.text(c, "exceptionClass"), Json.text(c, "topFrame"), Json.text(c, "exampleId"),
                        Json.text(c, "exampleError")));
                table.print(out());
                if (causes instanceof JsonObject all) {
                    out().println(Json.text(all, "causes") + " causes, " + Json.text(all, "deadLetters") + " dead letters");
                }
            });
        }
    }

    /** A payload file's JSON object; a file that is missing or not an object is the user's mistake (exit 2). */
    static JsonValue payload(Path file) {
        String text;
        try {
            text = file.toString().equals("-") ? new String(System.in.readAllBytes(), StandardCharsets.UTF_8)
                    : Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new Failure(Exit.USAGE, "cannot read the payload file " + file + ": " + e.getMessage());
        }
        if (!(Json.parseOrNull(text) instanceof JsonObject object)) {
            throw new Failure(Exit.USAGE, "the payload file " + file + " must hold one JSON object");
        }
        return object;
    }
}
