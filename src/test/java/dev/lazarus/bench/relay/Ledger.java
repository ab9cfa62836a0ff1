package dev.lazarus.bench.relay;

import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The least bookkeeping a step can have, as both ledger relays do it with plain JDBC on Lazarus's datasource: read the
 * item (its hop and payload: a step's claim), then, in one statement, move it to the next hop and insert the hop's
 * record (a step's outcome). Two round trips, no ORM. The benchmark creates the tables and the items.
 */
@Stateless
public class Ledger {

    /** What the hop found. */
    public enum Claim { ADVANCED, REPLAY }

    @Resource(lookup = "java:jboss/datasources/LazarusDS")
    DataSource dataSource;

    /** In the caller's transaction (the XA relay's). */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public Claim advanceInCallersTransaction(UUID id, int hop) {
        return advance(id, hop);
    }

    /** In a transaction of its own, which holds only the database (committed in one phase). */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public Claim advanceAlone(UUID id, int hop) {
        return advance(id, hop);
    }

    private Claim advance(UUID id, int hop) {
        try (Connection connection = dataSource.getConnection()) {
            int at;
            String payload;
            try (PreparedStatement read = connection.prepareStatement("select hop, payload from bench_ledger where id = ?")) {
                read.setObject(1, id);
                try (ResultSet row = read.executeQuery()) {
                    if (!row.next()) {
                        throw new IllegalStateException("no ledger item " + id);
                    }
                    at = row.getInt(1);
                    payload = row.getString(2);
                }
            }
            if (at > hop) {
                return Claim.REPLAY; // this hop's record committed before: do not run it again
            }
            try (PreparedStatement move = connection.prepareStatement("with moved as (update bench_ledger set hop = hop + 1,"
                    + " payload = ?, version = version + 1, updated_at = now() where id = ? and hop = ? returning id, hop)"
                    + " insert into bench_ledger_step (item_id, hop, finished_at) select id, hop, now() from moved")) {
                move.setString(1, payload);
                move.setObject(2, id);
                move.setInt(3, hop);
                if (move.executeUpdate() != 1) {
                    throw new IllegalStateException("ledger item " + id + " moved on meanwhile");
                }
            }
            return Claim.ADVANCED;
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }
}
