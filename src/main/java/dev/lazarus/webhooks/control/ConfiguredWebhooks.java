package dev.lazarus.webhooks.control;

import dev.lazarus.events.entity.EventType;
import dev.lazarus.webhooks.entity.Webhook;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Status;
import jakarta.transaction.UserTransaction;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The webhooks of the configuration, written to the database at start: for each name {@code N} with a system property
 * {@code lazarus.webhooks.N.url}, the webhook {@code N} with {@code .secret}, {@code .types} (comma-separated, all if
 * absent) and {@code .enabled} (default true). Those of an earlier start that the configuration no longer names are
 * removed. A webhook the configuration names that the API created is left alone, and the log says so.
 *
 * <p>Every node does this at its start, often several at once: the nodes take turns (a transaction-scoped advisory lock),
 * a row already as configured is not written, and the writes are an upsert and a delete that cannot clash with another
 * node's. Whatever still goes wrong is logged and the deployment goes on: the webhooks of the last start stay in force.
 */
@Singleton
@Startup
@DependsOn("SchemaMigration")
@TransactionManagement(TransactionManagementType.BEAN)
public class ConfiguredWebhooks {

    private static final Logger LOG = Logger.getLogger(ConfiguredWebhooks.class.getName());
    private static final Pattern PROPERTY = Pattern.compile("lazarus\\.webhooks\\.([a-z0-9][a-z0-9-]*)\\.(url|secret|types|enabled)");
    /** The advisory lock the nodes take turns with: (the migration that made the table, 0). */
    private static final int SYNC_LOCK = 28;

    @PersistenceContext
    EntityManager em;

    @Inject
    Clock clock;

    @Resource
    UserTransaction transaction;

    @PostConstruct
    void apply() {
        Map<String, Map<String, String>> named = read(System.getProperties());
        try {
            transaction.begin();
            try {
                sync(named);
                transaction.commit();
            } finally {
                if (transaction.getStatus() != Status.STATUS_NO_TRANSACTION) {
                    transaction.rollback();
                }
            }
        } catch (Exception e) {
            LOG.log(Level.WARNING, "The webhooks of the configuration could not be written; those of the last start stay in force", e);
        }
    }

    private void sync(Map<String, Map<String, String>> named) {
        // counted, not selected: a result of type void is not one JDBC reads
        em.createNativeQuery("select count(*) from (select pg_advisory_xact_lock(" + SYNC_LOCK + ", 0)) locked").getSingleResult();
        int removed = named.isEmpty()
                ? em.createNativeQuery("delete from webhook where source = 'CONFIGURATION'").executeUpdate()
                : em.createNativeQuery("delete from webhook where source = 'CONFIGURATION' and name not in (:names)")
                        .setParameter("names", List.copyOf(named.keySet())).executeUpdate();
        if (removed > 0) {
            LOG.log(Level.INFO, "{0} webhook(s) of an earlier configuration removed", removed);
        }
        Instant now = clock.instant();
        named.forEach((name, values) -> {
            Webhook webhook;
            try {
                if (values.get("secret") == null) {
                    throw new IllegalArgumentException("lazarus.webhooks." + name + ".secret is required: deliveries are signed with it");
                }
                Set<EventType> types = values.get("types") == null ? Set.of()
                        : Webhook.types(Arrays.stream(values.get("types").split(",")).map(String::strip).filter(t -> !t.isEmpty()).toList());
                boolean enabled = !"false".equalsIgnoreCase(values.getOrDefault("enabled", "true").strip());
                // built, not persisted: its constructor checks the rules and gives the stored form
                webhook = new Webhook(name, Webhook.Source.CONFIGURATION, values.get("url"), values.get("secret"), types, enabled,
                        "configuration", now);
            } catch (IllegalArgumentException e) {
                LOG.log(Level.SEVERE, "Webhook {0} in the configuration is left out: {1}", new Object[] {name, e.getMessage()});
                return;
            }
            String source = upsert(webhook);
            if (!Webhook.Source.CONFIGURATION.name().equals(source)) {
                LOG.log(Level.WARNING, "Webhook {0} is in the configuration and was also created over the API; the API''s is kept", name);
                return;
            }
            // the host only: the rest of a chat service's webhook URL is the credential to post to it
            LOG.log(Level.INFO, "Webhook {0} from the configuration: {1}, types {2}, {3}", new Object[] {name, Webhook.origin(webhook.url()),
                    webhook.typeNames().isEmpty() ? "all" : webhook.typeNames(), webhook.enabled() ? "enabled" : "disabled"});
        });
    }

    /**
     * Inserts the webhook, or updates the one of the configuration of that name if it differs; one of the API is left as
     * it is. The source of the row of that name afterwards.
     */
    private String upsert(Webhook webhook) {
        em.createNativeQuery("insert into webhook (name, url, secret, types, enabled, source, created_at, updated_at, updated_by, version)"
                        + " values (?1, ?2, ?3, cast(?4 as varchar), ?5, 'CONFIGURATION', ?6, ?6, 'configuration', 0)"
                        + " on conflict (name) do update set url = excluded.url, secret = excluded.secret, types = excluded.types,"
                        + " enabled = excluded.enabled, updated_at = excluded.updated_at, updated_by = excluded.updated_by,"
                        + " version = webhook.version + 1"
                        + " where webhook.source = 'CONFIGURATION' and (webhook.url, webhook.secret, webhook.types, webhook.enabled)"
                        + " is distinct from (excluded.url, excluded.secret, excluded.types, excluded.enabled)")
                .setParameter(1, webhook.name())
                .setParameter(2, webhook.url())
                .setParameter(3, webhook.signingSecret())
                .setParameter(4, webhook.typeNames().isEmpty() ? null : String.join(",", webhook.typeNames()))
                .setParameter(5, webhook.enabled())
                .setParameter(6, Timestamp.from(webhook.createdAt()))
                .executeUpdate();
        return (String) em.createNativeQuery("select source from webhook where name = ?1").setParameter(1, webhook.name()).getSingleResult();
    }

    /** The configured webhooks' properties by name ({@code url} required). */
    static Map<String, Map<String, String>> read(Properties properties) {
        Map<String, Map<String, String>> named = new TreeMap<>();
        for (String key : properties.stringPropertyNames()) {
            Matcher m = PROPERTY.matcher(key);
            if (m.matches()) {
                named.computeIfAbsent(m.group(1), n -> new TreeMap<>()).put(m.group(2), properties.getProperty(key));
            }
        }
        named.values().removeIf(values -> values.get("url") == null);
        return named;
    }
}
