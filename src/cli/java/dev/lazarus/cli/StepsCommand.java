package dev.lazarus.cli;

import static dev.lazarus.cli.Table.column;

import jakarta.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code lazarus steps}: every step's state and queue, and pausing and resuming one by hand ({@code /api/steps}). */
@Command(name = "steps", mixinStandardHelpOptions = true, description = "Steps: list, pause, resume",
        subcommands = {StepsCommand.List.class, StepsCommand.Pause.class, StepsCommand.Resume.class})
final class StepsCommand {

    @Command(name = "list", mixinStandardHelpOptions = true, description = {"Lists every step with its state (RUNNING, PAUSED, HELD), "
            + "who changed it and why, and its queue's figures (GET /api/steps)."},
        footer = {"%nExamples:", "  lazarus steps list"})
    static final class List extends Action {

        @Override
        void run() {
            print(api().get("steps"), steps -> {
                Table table = stepTable();
                Json.items(steps, "steps").forEach(step -> addStep(table, step));
                table.print(out());
            });
        }
    }

    static Table stepTable() {
        return new Table(column("PIPELINE", 30), column("STEP", 24), column("STATE", 8), column("SINCE", 20), column("BY", 16),
                column("WAITING", 8), column("IN FLIGHT", 9), column("CONSUMERS", 9), column("DLQ", 8), column("FAILING", 7), column("NOTE", 50));
    }

    static void addStep(Table table, JsonObject step) {
        String rate = Json.text(step, "failureRate");
        String note = Json.text(step, "note");
        if ("RUNNING".equals(Json.text(step, "state")) && "true".equals(Json.text(step, "queuePaused"))) {
            // paused outside Lazarus (the Artemis console): why runs wait at a step that runs
            note = "its queue is paused on the broker, outside Lazarus" + (note == null ? "" : "; " + note);
        }
        table.row(Json.text(step, "pipeline"), Json.text(step, "step"), Json.text(step, "state"), Json.time(step, "since"), Json.text(step, "by"),
                Json.text(step, "waiting"), Json.text(step, "inFlight"), Json.text(step, "consumers"), Json.text(step, "dlqDepth"),
                rate == null ? null : Math.round(Double.parseDouble(rate) * 100) + "%", note);
    }

    /** A pause or resume of one step: the step as it now is. */
    abstract static class Change extends Action {

        @Parameters(index = "0", paramLabel = "PIPELINE")
        String pipeline;

        @Parameters(index = "1", paramLabel = "STEP")
        String step;

        void post(String action, String note) {
            String body = api().post("steps/" + Api.encode(pipeline) + "/" + Api.encode(step) + "/" + action,
                    note == null ? "{}" : "{\"note\":" + Json.quote(note) + "}");
            print(body, changed -> {
                Table table = stepTable();
                addStep(table, changed.asJsonObject());
                table.print(out());
            });
        }
    }

    @Command(name = "pause", mixinStandardHelpOptions = true, description = {"Pauses a step on every node: its messages wait in its "
            + "queue, none is lost (POST /api/steps/{pipeline}/{step}/pause; operator)."},
        footer = {"%nExamples:", "  lazarus steps pause document-ingestion index --note \"search cluster upgrade\""})
    static final class Pause extends Change {

        @Option(names = "--note", required = true, paramLabel = "WHY", description = "Why (required)")
        String note;

        @Override
        void run() {
            post("pause", note);
        }
    }

    @Command(name = "resume", mixinStandardHelpOptions = true, description = {"Resumes a paused or held step "
            + "(POST /api/steps/{pipeline}/{step}/resume; operator)."},
        footer = {"%nExamples:", "  lazarus steps resume document-ingestion index"})
    static final class Resume extends Change {

        @Option(names = "--note", paramLabel = "WHY")
        String note;

        @Override
        void run() {
            post("resume", note);
        }
    }
}
