package dev.lazarus.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * {@code lazarus}: the command line's root. It holds what every command shares (the options {@code --url} and
 * {@code --json}, which may be given before or after the command's name, and the settings the environment gives) and
 * turns every {@link Failure} into one line on stderr and its exit code.
 */
@Command(name = "lazarus", mixinStandardHelpOptions = true, versionProvider = Lazarus.Version.class,
        description = {"The command-line client of Lazarus's REST API: runs, dead letters, bulk jobs, steps and events.",
                "",
                "The server and the credentials come from the environment (LAZARUS_URL, LAZARUS_USER, LAZARUS_PASSWORD) or from a "
                        + "properties file (url=, user=, password=) named by LAZARUS_CONFIG, by default "
                        + "~/.config/lazarus/cli.properties; the URL defaults to " + Settings.DEFAULT_URL + " (the demo stack)."},
        subcommands = {RunsCommand.class, DeadLettersCommand.class, JobsCommand.class, StepsCommand.class, EventsCommand.class,
                CommandLine.HelpCommand.class},
        footer = {"", Exit.TABLE})
public class Lazarus {

    @Option(names = "--url", scope = ScopeType.INHERIT, paramLabel = "URL",
            description = "The Lazarus application, e.g. http://127.0.0.1:8080/lazarus (default: LAZARUS_URL, the file's url=, or the demo stack's)")
    String url;

    @Option(names = "--json", scope = ScopeType.INHERIT,
            description = "Print the API's JSON as it answered, instead of a table (for scripts and jq)")
    boolean json;

    private final Map<String, String> env;
    private final Path home;
    private Api api;

    Lazarus(Map<String, String> env, Path home) {
        this.env = env;
        this.home = home;
    }

    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
        System.exit(execute(args, System.getenv(), Path.of(System.getProperty("user.home")), out, err));
    }

    /** Runs one command line and answers its exit code; {@code out} and {@code err} stand for stdout and stderr. */
    public static int execute(String[] args, Map<String, String> env, Path home, PrintWriter out, PrintWriter err) {
        CommandLine line = commandLine(env, home);
        line.setOut(out);
        line.setErr(err);
        try {
            return line.execute(args);
        } finally {
            out.flush();
            err.flush();
        }
    }

    /** The command tree (the tests walk it to ask every command for its help). */
    public static CommandLine commandLine(Map<String, String> env, Path home) {
        CommandLine line = new CommandLine(new Lazarus(env, home));
        line.setUsageHelpWidth(100);
        line.setExecutionExceptionHandler((failed, commandLine, parsed) -> {
            PrintWriter err = commandLine.getErr();
            commandLine.getOut().flush();
            if (failed instanceof Failure failure) {
                err.println("lazarus: " + failure.getMessage());
                return failure.exitCode();
            }
            // a fault of the client itself: one line, the stack trace only when asked for
            err.println("lazarus: unexpected " + failed + (env.containsKey("LAZARUS_DEBUG") ? "" : " (LAZARUS_DEBUG=1 shows where)"));
            if (env.containsKey("LAZARUS_DEBUG")) {
                failed.printStackTrace(err);
            }
            return Exit.SERVER;
        });
        return line;
    }

    /** The API, with the settings read once; warnings about them (a config file others can read) go to stderr. */
    Api api(PrintWriter err) {
        if (api == null) {
            Settings settings = Settings.load(env, home);
            settings.warnings().forEach(warning -> err.println("lazarus: warning: " + warning));
            api = new Api(settings.withUrl(url));
        }
        return api;
    }

    Map<String, String> env() {
        return env;
    }

    /** The version the jar's manifest names (the project's), for {@code --version}. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Lazarus.class.getPackage().getImplementationVersion();
            return new String[] {"lazarus " + (version == null ? "(development build)" : version),
                    "Java " + System.getProperty("java.version")};
        }
    }
}
