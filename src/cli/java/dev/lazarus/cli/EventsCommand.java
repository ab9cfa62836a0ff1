package dev.lazarus.cli;

import jakarta.json.JsonObject;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code lazarus events}: what happened to dead letters, runs and steps, as the API's event feed has it ({@code /api/events}). */
@Command(name = "events", mixinStandardHelpOptions = true, description = "Events: tail", subcommands = EventsCommand.Tail.class)
final class EventsCommand {

    @Command(name = "tail", mixinStandardHelpOptions = true, description = {"Prints the newest events (dead-lettered, requeued, resolved, "
            + "discarded, stopped, held, resumed), and with --follow each new one as it comes (polls GET /api/events?after=ID).", "With --json each event is one JSON object on its own line."},
        footer = {"%nExamples:",
                "  lazarus events tail --follow",
                "  lazarus events tail --follow --json | jq -r 'select(.type == \"dead-lettered\") | .runId'"})
    static final class Tail extends Action {

        @Option(names = {"-f", "--follow"}, description = "Keep polling for new events until interrupted (Ctrl-C)")
        boolean follow;

        @Option(names = "--after", paramLabel = "EVENT_ID", description = "Only events after this one (the first --follow poll starts there)")
        String after;

        @Option(names = "--limit", paramLabel = "N", defaultValue = "50", description = "At most N a poll (default: ${DEFAULT-VALUE})")
        int limit;

        @Option(names = "--interval", paramLabel = "SECONDS", defaultValue = "2", description = "Seconds between polls with --follow (default: ${DEFAULT-VALUE})")
        int interval;

        private boolean unreachable;

        @Override
        void run() {
            if (limit < 1 || interval < 1) {
                throw new Failure(Exit.USAGE, "--limit and --interval must be 1 or more");
            }
            String last = after;
            do {
                List<JsonObject> events;
                try {
                    events = poll(last);
                } catch (Failure failed) {
                    if (follow && Thread.currentThread().isInterrupted()) {
                        return; // stopped (Ctrl-C) while a poll was under way: the tail ends as it does between polls
                    }
                    if (!follow || failed.exitCode() != Exit.SERVER) {
                        throw failed;
                    }
                    // a following tail outlives a server restart: say so once, and carry on when it answers again
                    if (!unreachable) {
                        err().println("lazarus: " + failed.getMessage() + "; trying again every " + interval + " s");
                        unreachable = true;
                    }
                    events = List.of();
                }
                for (JsonObject event : events) {
                    print(event);
                    String id = Json.text(event, "id");
                    last = id == null ? last : id;
                }
                out().flush();
                if (follow && events.size() < limit && !pause()) {
                    return;
                }
            } while (follow);
        }

        private List<JsonObject> poll(String last) {
            List<JsonObject> events = Json.items(Json.parse(api().get(new Query().add("after", last).add("limit", limit).on("events"))),
                    "items", "events");
            unreachable = false;
            return events;
        }

        private boolean pause() {
            try {
                Thread.sleep(interval * 1000L);
                return true;
            } catch (InterruptedException stopped) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        private void print(JsonObject event) {
            if (json()) {
                out().println(event);
                return;
            }
            String who = first(Json.text(event, "actor"), Json.text(event, "who"), Json.text(event, "by"));
            String where = join(Json.text(event, "pipeline"), Json.text(event, "step"));
            String count = Json.text(event, "count"); // a coalesced burst: how many it stands for
            out().println(String.join("  ", cell(Json.text(event, "id"), 8), cell(Json.time(event, "at"), 20), cell(Json.text(event, "type"), 16),
                    cell(where, 40), cell(Json.text(event, "runId"), 36), cell(Json.text(event, "reason"), 19), cell(who, 16),
                    count == null ? "" : "x" + count).stripTrailing());
        }

        private static String cell(String text, int width) {
            String shown = text == null ? "-" : Cells.oneLine(text, width);
            return shown + " ".repeat(Math.max(0, width - shown.codePointCount(0, shown.length())));
        }

        private static String join(String pipeline, String step) {
            return pipeline == null ? step : step == null ? pipeline : pipeline + "/" + step;
        }

        private static String first(String... values) {
            for (String value : values) {
                if (value != null) {
                    return value;
                }
            }
            return null;
        }
    }
}
