package dev.lazarus.cli;

/** Why a command could not do what it was asked, as one line for stderr, and the exit code that says so. */
public final class Failure extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int exitCode;

    public Failure(int exitCode, String message) {
        super(message, null, false, false);
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }
}
