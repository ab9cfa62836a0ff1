package dev.lazarus.cli;

/**
 * The exit codes scripts test, one per kind of outcome (documented in {@code lazarus --help} and the CLI guide).
 * 2 is picocli's own for a usage error, kept so that a mistyped command reads the same as in other picocli tools.
 */
public final class Exit {

    public static final int OK = 0;
    /** The server refused the request: a bad value, a conflict (4xx other than those below). */
    public static final int REFUSED = 1;
    /** The command line is wrong (unknown option, missing argument), or the configuration is. */
    public static final int USAGE = 2;
    /** What the command names does not exist (404). */
    public static final int NOT_FOUND = 3;
    /** No credentials, wrong ones (401), or a role that may not do this (403). */
    public static final int NOT_ALLOWED = 4;
    /** The server failed (5xx), or could not be reached. */
    public static final int SERVER = 5;

    private Exit() {
    }

    /** The exit code of an HTTP answer's status. */
    public static int forStatus(int status) {
        if (status >= 200 && status < 300) {
            return OK;
        }
        if (status == 404) {
            return NOT_FOUND;
        }
        if (status == 401 || status == 403) {
            return NOT_ALLOWED;
        }
        if (status >= 400 && status < 500) {
            return REFUSED;
        }
        return SERVER;
    }

    /** The table {@code lazarus --help} ends with. */
    static final String TABLE = """
            Exit codes:
              0  done
              1  the server refused the request (a bad value, a conflict: 4xx)
              2  usage error: unknown command or option, missing argument, bad configuration
              3  not found (404)
              4  no credentials, wrong ones, or not allowed (401, 403)
              5  server error (5xx) or server unreachable""";
}
