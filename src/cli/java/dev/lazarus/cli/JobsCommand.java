package dev.lazarus.cli;

import static dev.lazarus.cli.Table.column;

import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code lazarus jobs}: bulk jobs that requeue, discard or resolve every open dead letter of a filter ({@code /api/bulk-jobs}). */
@Command(name = "jobs", mixinStandardHelpOptions = true, description = "Bulk jobs over open dead letters: start (or --dry-run), show, cancel, list",
        subcommands = {JobsCommand.Start.class, JobsCommand.Show.class, JobsCommand.Cancel.class, JobsCommand.List.class})
final class JobsCommand {

    @Command(name = "start", mixinStandardHelpOptions = true, description = {"Starts a bulk job over the open dead letters of a filter "
            + "(POST /api/bulk-jobs; operator); --dry-run only counts them (GET /api/bulk-jobs/dry-run)."},
        footer = {"%nExamples:",
                "  lazarus jobs start --action requeue --reason RETRIES_EXHAUSTED --step fetch --since 2h --dry-run",
                "  lazarus jobs start --action discard --cause 1a2b3c4d --note \"test data\" --rate 50"})
    static final class Start extends Action {

        @Option(names = "--action", required = true, paramLabel = "ACTION", description = "requeue, discard or resolve")
        String action;

        @Mixin
        Filters.DeadLetterFilter filter;

        @Option(names = "--cause", paramLabel = "CAUSE", description = "One group of causes (a cause from 'dead-letters causes')")
        String cause;

        @Option(names = "--rate", paramLabel = "PER_SECOND", description = "At most this many dead letters a second (default: as fast as it goes)")
        Integer rate;

        @Option(names = "--note", paramLabel = "WHY", description = "Why (a discard or resolve job needs one)")
        String note;

        @Option(names = "--dry-run", description = "Only count what the job would act on; start nothing")
        boolean dryRun;

        @Override
        void run() {
            if (dryRun) {
                String body = api().get(filter.addJobFilterTo(new Query().add("action", action), cause).on("bulk-jobs/dry-run"));
                print(body, answer -> {
                    JsonObject counted = answer.asJsonObject();
                    out().println("would " + Json.text(counted, "action") + " " + Json.text(counted, "matching") + " open dead letters matching "
                            + Json.text(counted, "filter") + " (dry run: nothing started)");
                });
                return;
            }
            JsonObjectBuilder request = Json.JSON.createObjectBuilder().add("action", action).add("filter", filter.asJobFilter(cause));
            if (rate != null) {
                request.add("ratePerSecond", rate);
            }
            if (note != null) {
                request.add("note", note);
            }
            print(api().post("bulk-jobs", request.build().toString()), job -> printJobs(job.asJsonObject()));
        }

        private void printJobs(JsonObject job) {
            Table table = jobTable();
            addJob(table, job);
            table.print(out());
            out().println("follow it with: lazarus jobs show " + Json.text(job, "id"));
        }
    }

    static Table jobTable() {
        return new Table(column("ID", 8), column("ACTION", 8), column("STATE", 10), column("DONE", 8), column("SKIPPED", 8), column("TOTAL", 8),
                column("%", 4), column("BY", 16), column("FILTER", 60), column("CREATED", 20), column("LAST ERROR", 40));
    }

    static void addJob(Table table, JsonObject job) {
        table.row(Json.text(job, "id"), Json.text(job, "action"), Json.text(job, "state"), Json.text(job, "done"), Json.text(job, "skipped"),
                Json.text(job, "total"), Json.text(job, "percent"), Json.text(job, "requestedBy"), Json.text(job, "filter"),
                Json.time(job, "createdAt"), Json.text(job, "lastError"));
    }

    @Command(name = "show", mixinStandardHelpOptions = true, description = {"Shows a bulk job's progress (GET /api/bulk-jobs/{id}).",
            "Example: lazarus jobs show 7"})
    static final class Show extends Action {

        @Parameters(paramLabel = "ID")
        long id;

        @Override
        void run() {
            print(api().get("bulk-jobs/" + id), job -> {
                Table table = jobTable();
                addJob(table, job.asJsonObject());
                table.print(out());
                String skipped = Json.text(job.asJsonObject(), "skippedDetail");
                if (skipped != null) {
                    out().println("skipped: " + Cells.oneLine(skipped, 400));
                }
            });
        }
    }

    @Command(name = "cancel", mixinStandardHelpOptions = true, description = {"Cancels a bulk job; what it did stays done "
            + "(POST /api/bulk-jobs/{id}/cancel; operator)."},
        footer = {"%nExamples:", "  lazarus jobs cancel 7"})
    static final class Cancel extends Action {

        @Parameters(paramLabel = "ID")
        long id;

        @Override
        void run() {
            print(api().post("bulk-jobs/" + id + "/cancel", "{}"), job -> {
                Table table = jobTable();
                addJob(table, job.asJsonObject());
                table.print(out());
            });
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = {"Lists the newest 50 bulk jobs (GET /api/bulk-jobs)."},
        footer = {"%nExamples:", "  lazarus jobs list"})
    static final class List extends Action {

        @Override
        void run() {
            print(api().get("bulk-jobs"), jobs -> {
                Table table = jobTable();
                Json.items(jobs, "items").forEach(job -> addJob(table, job));
                table.print(out());
            });
        }
    }
}
