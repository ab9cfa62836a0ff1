package dev.lazarus.platform.control;

/** How a failure is named in a log line: its root cause, without the container's wrapping. */
public final class Failures {

    private Failures() {
    }

    /** The innermost cause's simple class name and message, e.g. {@code "SQLException: connection refused"}. */
    public static String rootMessage(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }
}
