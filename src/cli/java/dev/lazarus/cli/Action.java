package dev.lazarus.cli;

import jakarta.json.JsonValue;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command that does something (a leaf of the command tree): it reaches the API, the output and the shared options
 * through the root, and prints either the answer's JSON as it came ({@code --json}) or a table.
 */
abstract class Action implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public final Integer call() {
        run();
        out().flush();
        return Exit.OK;
    }

    abstract void run();

    Lazarus root() {
        return (Lazarus) spec.root().userObject();
    }

    Api api() {
        return root().api(err());
    }

    boolean json() {
        return root().json;
    }

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    PrintWriter err() {
        return spec.commandLine().getErr();
    }

    /** The answer as the API gave it, one document on its own line(s). */
    void printJson(String body) {
        out().println(body.strip());
    }

    /** {@code body} as JSON, or its table: {@code --json} decides. */
    void print(String body, java.util.function.Consumer<JsonValue> table) {
        if (json()) {
            printJson(body);
        } else {
            table.accept(Json.parse(body));
        }
    }
}
