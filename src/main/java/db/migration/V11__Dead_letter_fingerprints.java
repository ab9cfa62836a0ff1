package db.migration;

import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.deadletter.entity.Fingerprint;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * Version 11: each dead letter's fingerprint, what its cause looks like (exception class and top stack frames,
 * normalised; see {@link Fingerprint}), so dead letters are grouped by cause and a group can be requeued; and the
 * requeue job's filter by it. Existing dead letters get theirs here, computed by the same code as new ones, a
 * thousand at a time.
 */
public class V11__Dead_letter_fingerprints extends BaseJavaMigration {

    private static final int BATCH = 1000;

    @Override
    public void migrate(Context context) throws Exception {
        try (Statement sql = context.getConnection().createStatement()) {
            sql.execute("alter table dead_letter add column fingerprint varchar(16)");
            sql.execute("alter table requeue_job add column filter_fingerprint varchar(16)");
        }
        long after = 0;
        while (true) {
            int read = 0;
            try (PreparedStatement select = context.getConnection().prepareStatement("select id, reason, exception_class, stack_trace, error_message"
                    + " from dead_letter where id > ? order by id limit " + BATCH);
                 PreparedStatement update = context.getConnection().prepareStatement("update dead_letter set fingerprint = ? where id = ?")) {
                select.setLong(1, after);
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        read++;
                        after = rows.getLong(1);
                        update.setString(1, Fingerprint.of(DeadLetterReason.valueOf(rows.getString(2)), rows.getString(3), rows.getString(4),
                                rows.getString(5)));
                        update.setLong(2, after);
                        update.addBatch();
                    }
                }
                update.executeBatch();
            }
            if (read < BATCH) {
                break;
            }
        }
        try (Statement sql = context.getConnection().createStatement()) {
            sql.execute("create index dead_letter_fingerprint on dead_letter (fingerprint, status)");
        }
    }
}
