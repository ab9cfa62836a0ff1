package db.migration;

import java.sql.ResultSet;
import java.sql.Statement;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * Version 5: dead letters, their audit entries and step executions take their ids from sequences,
 * allocated 50 at a time, instead of identity columns, so that a sweep or a bulk requeue writing
 * thousands of rows can send its inserts in JDBC batches (an identity insert is one round trip each).
 * Each sequence starts above the highest id already used, on H2 and PostgreSQL alike.
 */
public class V5__Sequence_ids extends BaseJavaMigration {

    private static final String[][] TABLES = {
            {"dead_letter", "dead_letter_seq"}, {"dead_letter_event", "dead_letter_event_seq"}, {"step_execution", "step_execution_seq"}};

    @Override
    public void migrate(Context context) throws Exception {
        try (Statement sql = context.getConnection().createStatement()) {
            for (String[] table : TABLES) {
                long next;
                try (ResultSet max = sql.executeQuery("select coalesce(max(id), 0) + 1 from " + table[0])) {
                    max.next();
                    next = max.getLong(1);
                }
                sql.execute("create sequence " + table[1] + " start with " + next + " increment by 50");
            }
        }
    }
}
