package dev.lazarus.platform.control;

import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.resource.ResourceException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import jakarta.transaction.HeuristicCommitException;
import jakarta.transaction.HeuristicMixedException;
import jakarta.transaction.HeuristicRollbackException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import javax.transaction.xa.XAException;

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
        return hasSqlState(failure, state -> state.startsWith("23"));
    }

    /** Something Lazarus needs that a failure can show to be unreachable. */
    public enum Dependency {
        BROKER("the broker"), DATABASE("the database");

        private final String label;

        Dependency(String label) {
            this.label = label;
        }

        /** As a sentence names it, e.g. "the broker". */
        public String label() {
            return label;
        }
    }

    /** Whether the failure is a wait for a row lock given up (H2's HYT00, PostgreSQL's 55P03 lock_not_available). */
    public static boolean isLockTimeout(Throwable failure) {
        return hasSqlState(failure, state -> state.equals("HYT00") || state.equals("55P03"));
    }

    /** Whether a cause of the failure is an SQLException whose SQL state matches. */
    private static boolean hasSqlState(Throwable failure, Predicate<String> matches) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof SQLException sql && sql.getSQLState() != null && matches.test(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /**
     * What the failure says is unreachable, if that is all it says: the broker (a JMS failure whose cause is the
     * connection: not connected, timed out, closed, a socket error) or the database (no connection: SQL state
     * class 08, PostgreSQL's 57P0x shutting down, or a connection pool that cannot open one). Looks through
     * causes and suppressed exceptions (a failed two-phase commit reports its resources' errors as suppressed).
     * Empty for anything else, and empty whenever the outcome of a commit is unknown (a heuristic outcome, an
     * Artemis "outcome unknown"): then something may have been done, and a caller must not be told otherwise.
     */
    public static Optional<Dependency> unavailableDependency(Throwable failure) {
        List<Throwable> all = new ArrayList<>();
        collect(failure, all, 0);
        if (all.stream().anyMatch(Failures::outcomeUnknown)) {
            return Optional.empty();
        }
        boolean jms = all.stream().anyMatch(t -> t instanceof JMSException || t instanceof JMSRuntimeException);
        if (all.stream().anyMatch(Failures::brokerConnectionLost)
                || jms && all.stream().anyMatch(t -> t instanceof java.io.IOException)) {
            return Optional.of(Dependency.BROKER);
        }
        if (all.stream().anyMatch(t -> t instanceof SQLTransientConnectionException || t instanceof ResourceException
                || t instanceof SQLException sql && sql.getSQLState() != null
                && (sql.getSQLState().startsWith("08") || sql.getSQLState().startsWith("57P0")))) {
            return Optional.of(Dependency.DATABASE);
        }
        return Optional.empty();
    }

    /** Every cause and suppressed exception of the failure, itself included (bounded: chains can be cyclic). */
    private static void collect(Throwable failure, List<Throwable> all, int depth) {
        if (failure == null || depth > 20 || all.size() > 100 || all.contains(failure)) {
            return;
        }
        all.add(failure);
        for (Throwable suppressed : failure.getSuppressed()) {
            collect(suppressed, all, depth + 1);
        }
        collect(failure.getCause(), all, depth + 1);
    }

    private static final Set<String> ARTEMIS_CONNECTION_FAILURES = Set.of("ActiveMQNotConnectedException",
            "ActiveMQConnectionTimedOutException", "ActiveMQUnBlockedException", "ActiveMQDisconnectedException",
            "ActiveMQObjectClosedException");

    private static boolean brokerConnectionLost(Throwable t) {
        return t.getClass().getName().startsWith("org.apache.activemq.artemis.")
                && ARTEMIS_CONNECTION_FAILURES.contains(t.getClass().getSimpleName());
    }

    /** Whether the failure is a commit whose outcome is not known (a heuristic outcome, an Artemis "outcome unknown"). */
    public static boolean commitOutcomeUnknown(Throwable failure) {
        List<Throwable> all = new ArrayList<>();
        collect(failure, all, 0);
        return all.stream().anyMatch(Failures::outcomeUnknown);
    }

    private static boolean outcomeUnknown(Throwable t) {
        if (t instanceof HeuristicMixedException || t instanceof HeuristicRollbackException || t instanceof HeuristicCommitException
                || t.getClass().getSimpleName().equals("ActiveMQTransactionOutcomeUnknownException")) {
            return true;
        }
        return t instanceof XAException xa && (xa.errorCode == XAException.XA_HEURHAZ || xa.errorCode == XAException.XA_HEURMIX
                || xa.errorCode == XAException.XA_HEURCOM || xa.errorCode == XAException.XA_HEURRB);
    }
}
