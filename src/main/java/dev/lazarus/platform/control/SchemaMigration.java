package dev.lazarus.platform.control;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Brings the database schema to the version this build expects, with the versioned scripts in
 * {@code db/migration}, before anything else starts. Hibernate never creates or changes tables.
 */
@Singleton
@Startup
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class SchemaMigration {

    private static final Logger LOG = Logger.getLogger(SchemaMigration.class.getName());

    @Resource(lookup = "java:jboss/datasources/LazarusDS")
    DataSource dataSource;

    /** WildFly's table for persistent EJB timers (see datasource-postgresql.cli), created by WildFly itself. */
    static final String TIMER_TABLE = "jboss_ejb_timer";

    @PostConstruct
    void migrate() {
        MigrateResult result = Flyway.configure(getClass().getClassLoader())
                .dataSource(dataSource)
                .locations("classpath:db/migration")
                // a new database may already hold WildFly's timer table (the timer service creates it when the server
                // starts, before this runs): then start from version 0, as for an empty schema; anything else in a
                // schema without Lazarus's history still stops the deployment
                .baselineOnMigrate(holdsOnlyTheTimerTable())
                .baselineVersion("0")
                .load()
                .migrate();
        LOG.log(Level.INFO, "Database schema at version {0} ({1} migrations applied now)",
                new Object[] {result.targetSchemaVersion != null ? result.targetSchemaVersion : result.initialSchemaVersion,
                        result.migrationsExecuted});
    }

    private boolean holdsOnlyTheTimerTable() {
        try (Connection connection = dataSource.getConnection();
             Statement statement = connection.createStatement();
             ResultSet tables = statement.executeQuery("select lower(table_name) from information_schema.tables"
                     + " where table_schema = current_schema()")) {
            Set<String> names = new HashSet<>();
            while (tables.next()) {
                names.add(tables.getString(1));
            }
            return names.equals(Set.of(TIMER_TABLE));
        } catch (SQLException e) {
            throw new IllegalStateException("could not look at the database schema: " + e.getMessage(), e);
        }
    }
}
