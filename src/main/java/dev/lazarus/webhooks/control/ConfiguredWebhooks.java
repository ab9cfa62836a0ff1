package dev.lazarus.webhooks.control;

import dev.lazarus.events.entity.EventType;
import dev.lazarus.webhooks.entity.Webhook;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Clock;
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
 * removed. A webhook the configuration names that the API created is left alone, and the log says so. Every node
 * writes the same rows at its start; the last one wins, which is the same.
 */
@Singleton
@Startup
@DependsOn("SchemaMigration")
public class ConfiguredWebhooks {

    private static final Logger LOG = Logger.getLogger(ConfiguredWebhooks.class.getName());
    private static final Pattern PROPERTY = Pattern.compile("lazarus\\.webhooks\\.([a-z0-9][a-z0-9-]*)\\.(url|secret|types|enabled)");

    @PersistenceContext
    EntityManager em;

    @Inject
    Clock clock;

    @PostConstruct
    void apply() {
        Map<String, Map<String, String>> named = read(System.getProperties());
        List<Webhook> earlier = em.createQuery("select w from Webhook w where w.source = :configuration", Webhook.class)
                .setParameter("configuration", Webhook.Source.CONFIGURATION).getResultList();
        earlier.stream().filter(w -> !named.containsKey(w.name())).forEach(em::remove);
        named.forEach((name, values) -> {
            try {
                String url = values.get("url");
                if (values.get("secret") == null) {
                    throw new IllegalArgumentException("lazarus.webhooks." + name + ".secret is required: deliveries are signed with it");
                }
                Set<EventType> types = values.get("types") == null ? Set.of()
                        : Webhook.types(Arrays.stream(values.get("types").split(",")).map(String::strip).filter(t -> !t.isEmpty()).toList());
                boolean enabled = !"false".equalsIgnoreCase(values.getOrDefault("enabled", "true").strip());
                Webhook webhook = em.find(Webhook.class, name);
                if (webhook == null) {
                    em.persist(new Webhook(name, Webhook.Source.CONFIGURATION, url, values.get("secret"), types, enabled, "configuration",
                            clock.instant()));
                } else if (webhook.fromConfiguration()) {
                    webhook.change(url, values.get("secret"), types, enabled, "configuration", clock.instant());
                } else {
                    LOG.log(Level.WARNING, "Webhook {0} is in the configuration and was also created over the API; the API''s is kept", name);
                    return;
                }
                LOG.log(Level.INFO, "Webhook {0} from the configuration: {1}, types {2}, {3}",
                        new Object[] {name, url, types.isEmpty() ? "all" : types, enabled ? "enabled" : "disabled"});
            } catch (IllegalArgumentException e) {
                LOG.log(Level.SEVERE, "Webhook {0} in the configuration is left out: {1}", new Object[] {name, e.getMessage()});
            }
        });
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
