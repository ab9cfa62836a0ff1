package dev.lazarus.it;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * A run whose row another transaction holds, from outside the server, as a transaction left in doubt would hold it:
 * the sweeper skips rows it cannot lock (and takes them at a later sweep), so a run past its threshold stays live,
 * and stale, for as long as this holds it. Lets a black-box test look at a stale run instead of racing the sweeper.
 * Connects to the test stack's PostgreSQL (its documented local-only user).
 */
final class HeldRun implements AutoCloseable {

    private final Connection connection;

    private HeldRun(Connection connection) {
        this.connection = connection;
    }

    /** Locks the run's row, which must be in {@code state}; the lock is held until {@link #close}. */
    static HeldRun lock(String runId, String state) {
        // the tests' database: the stack's own (embedded, on it.db.port) or the machine's (-Dlazarus.db=postgresql, 5432)
        int port = "postgresql".equals(System.getProperty("it.db")) ? 5432 : Integer.getInteger("it.db.port", 5533);
        String url = "jdbc:postgresql://127.0.0.1:" + port + "/lazarus";
        try {
            Connection connection = DriverManager.getConnection(url, "lazarus", "lazarus");
            try {
                connection.setAutoCommit(false);
                try (Statement timeout = connection.createStatement()) {
                    timeout.execute("set local lock_timeout = '5s'");
                }
                try (PreparedStatement select = connection.prepareStatement("select state from run where id = ? for update")) {
                    select.setObject(1, UUID.fromString(runId));
                    try (ResultSet row = select.executeQuery()) {
                        if (!row.next() || !state.equals(row.getString(1))) {
                            throw new AssertionError("run " + runId + " is not " + state + " any more");
                        }
                    }
                }
                return new HeldRun(connection);
            } catch (SQLException | RuntimeException | Error e) {
                connection.close();
                throw e;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not lock run " + runId + ": " + e.getMessage(), e);
        }
    }

    /** Lets go of the run: the next sweep may take it. */
    @Override
    public void close() {
        try {
            connection.rollback();
            connection.close();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
