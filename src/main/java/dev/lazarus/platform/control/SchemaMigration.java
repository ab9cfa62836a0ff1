package dev.lazarus.platform.control;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
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

    @PostConstruct
    void migrate() {
        MigrateResult result = Flyway.configure(getClass().getClassLoader())
                .dataSource(dataSource)
                .locations("classpath:db/migration")
                .load()
                .migrate();
        LOG.log(Level.INFO, "Database schema at version {0} ({1} migrations applied now)",
                new Object[] {result.targetSchemaVersion != null ? result.targetSchemaVersion : result.initialSchemaVersion,
                        result.migrationsExecuted});
    }
}
