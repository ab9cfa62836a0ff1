package dev.lazarus.platform.control;

import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.resource.ResourceException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Optional;

/** How a failure is named (its root cause, without the container's wrapping) and what kind of failure it is. */
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

    /** Whether the failure is a unique constraint refusing a row (SQL state class 23, e.g. PostgreSQL's and H2's 23505). */
    public static boolean isDuplicateKey(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("23")) {
                return true;
            }
        }
        return false;
    }

    /**
     * What the failure says is unreachable, if that is what it is: "the broker" (a JMS or Artemis client failure:
     * the request's own work is correct, only the broker can refuse it), or "the database" (no connection: SQL
     * state class 08, PostgreSQL's 57P0x shutting down, or a connection pool that cannot open one). Looks through
     * causes and suppressed exceptions (a failed two-phase commit reports its resources' errors as suppressed).
     * Empty for anything else.
     */
    public static Optional<String> unavailableDependency(Throwable failure) {
        return unavailableDependency(failure, 0);
    }

    private static Optional<String> unavailableDependency(Throwable failure, int depth) {
        if (failure == null || depth > 20) {
            return Optional.empty();
        }
        if (failure instanceof JMSException || failure instanceof JMSRuntimeException
                || failure.getClass().getName().startsWith("org.apache.activemq.artemis.")) {
            return Optional.of("the broker");
        }
        if (failure instanceof SQLTransientConnectionException || failure instanceof ResourceException
                || failure instanceof SQLException sql && sql.getSQLState() != null
                && (sql.getSQLState().startsWith("08") || sql.getSQLState().startsWith("57P0"))) {
            return Optional.of("the database");
        }
        for (Throwable suppressed : failure.getSuppressed()) {
            Optional<String> found = unavailableDependency(suppressed, depth + 1);
            if (found.isPresent()) {
                return found;
            }
        }
        return failure.getCause() == failure ? Optional.empty() : unavailableDependency(failure.getCause(), depth + 1);
    }
}
