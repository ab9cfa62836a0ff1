package dev.lazarus.webhooks.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.pipeline.control.Runs;
import dev.lazarus.platform.control.Problem;
import dev.lazarus.webhooks.entity.Webhook;
import jakarta.ejb.EJB;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.io.StringReader;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * From events to notifications, in two passes that any node may run at any time ({@code FOR UPDATE SKIP LOCKED}: two
 * nodes take different rows, never the same):
 * <ol>
 * <li>{@link #gather}: the events the webhooks have not seen go into windows, one per webhook, type and cause
 * ({@code webhook_window}, an upsert that adds to the count and keeps the first and last times and a few run ids);</li>
 * <li>{@link #flush}: each window open for {@code lazarus.webhooks.coalesce-interval} (default 30 s) becomes one
 * notification, a run of {@link WebhookDelivery}: the event itself for a window of one, else a summary with the count.
 * The run's submission key is the window's id, so a flush that fails after starting it and runs again starts no second.</li>
 * </ol>
 * Events about {@link WebhookDelivery}'s own runs are never gathered: a failing receiver does not notify itself.
 */
@Stateless
public class Notifications {

    private static final Logger LOG = Logger.getLogger(Notifications.class.getName());

    /** The schema of a coalesced notification. */
    public static final String SUMMARY_SCHEMA = "lazarus.event-summary/v1";
    public static final int BATCH_SIZE = 500;
    static final int SAMPLES_UNTIL = 150; // characters of run ids kept: five ids at most

    @PersistenceContext
    EntityManager em;

    @EJB
    Runs runs;

    @Inject
    @ConfigProperty(name = "lazarus.webhooks.coalesce-interval", defaultValue = "PT30S")
    Duration interval;

    /** Takes a batch of events into the windows; how many it took. */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int gather() {
        @SuppressWarnings("unchecked")
        List<Object[]> pending = em.createNativeQuery("select id, type, body, pipeline from lazarus_event where webhooks_pending"
                + " order by id limit " + BATCH_SIZE + " for update skip locked").getResultList();
        if (pending.isEmpty()) {
            return 0;
        }
        List<Webhook> webhooks = em.createQuery("select w from Webhook w where w.enabled = true", Webhook.class).getResultList();
        for (Object[] row : pending) {
            long id = ((Number) row[0]).longValue();
            String type = (String) row[1];
            if (WebhookDelivery.NAME.equals(row[3])) {
                continue;
            }
            JsonObject event = JSON.createReader(new StringReader((String) row[2])).readObject();
            JsonObject cause = event.getJsonObject("cause");
            String fingerprint = cause != null && cause.containsKey("fingerprint") ? cause.getString("fingerprint")
                    : event.getString("reason", "-");
            String runId = event.getString("runId", "");
            Timestamp at = Timestamp.from(Instant.parse(event.getString("at")));
            for (Webhook webhook : webhooks) {
                if (!webhook.wants(type)) {
                    continue;
                }
                em.createNativeQuery("insert into webhook_window (id, webhook, type, fingerprint, opened_at, event_count, first_at,"
                                + " last_at, first_event_id, samples) values (nextval('webhook_window_seq'), ?1, ?2, ?3, now(), 1, ?4, ?4, ?5, ?6)"
                                + " on conflict (webhook, type, fingerprint) do update set event_count = webhook_window.event_count + 1,"
                                + " first_at = least(webhook_window.first_at, excluded.first_at),"
                                + " last_at = greatest(webhook_window.last_at, excluded.last_at),"
                                + " samples = case when excluded.samples = '' or length(webhook_window.samples) >= " + SAMPLES_UNTIL
                                + " then webhook_window.samples when webhook_window.samples = '' then excluded.samples"
                                + " else webhook_window.samples || ',' || excluded.samples end")
                        .setParameter(1, webhook.name())
                        .setParameter(2, type)
                        .setParameter(3, fingerprint.length() > 100 ? fingerprint.substring(0, 100) : fingerprint)
                        .setParameter(4, at)
                        .setParameter(5, id)
                        .setParameter(6, runId)
                        .executeUpdate();
            }
        }
        em.createNativeQuery("update lazarus_event set webhooks_pending = false where id in (:ids)")
                .setParameter("ids", pending.stream().map(row -> ((Number) row[0]).longValue()).toList())
                .executeUpdate();
        return pending.size();
    }

    /** Starts the deliveries of the windows that are due; how many it started. */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int flush() {
        @SuppressWarnings("unchecked")
        List<Object[]> due = em.createNativeQuery("select w.id, w.webhook, w.type, w.event_count, w.first_at, w.last_at, w.samples, e.body"
                        + " from webhook_window w left join lazarus_event e on e.id = w.first_event_id"
                        + " where w.opened_at <= now() - cast(?1 as interval) order by w.opened_at limit 100 for update of w skip locked")
                .setParameter(1, interval.toMillis() + " milliseconds")
                .getResultList();
        int started = 0;
        for (Object[] row : due) {
            long id = ((Number) row[0]).longValue();
            String webhook = (String) row[1];
            String type = (String) row[2];
            int count = ((Number) row[3]).intValue();
            if (row[7] != null) {
                JsonObject first = JSON.createReader(new StringReader((String) row[7])).readObject();
                JsonObject body = count == 1 ? first : summary(first, type, count, instant(row[4]), instant(row[5]), (String) row[6]);
                JsonObject payload = JSON.createObjectBuilder().add("webhook", webhook).add("type", type).add("count", count)
                        .add("body", body).build();
                try {
                    runs.startInternal(WebhookDelivery.NAME, payload, "webhook-window-" + id);
                    started++;
                } catch (Problem e) {
                    // started by an earlier flush of this window whose transaction did not commit (422: the count grew since)
                    LOG.log(Level.INFO, "Window {0} of webhook {1} was delivered already: {2}", new Object[] {id, webhook, e.getMessage()});
                }
            }
            em.createNativeQuery("delete from webhook_window where id = ?1").setParameter(1, id).executeUpdate();
        }
        return started;
    }

    /** A window of several events: the first one's description, with the count, the first and last times and some run ids. */
    static JsonObject summary(JsonObject first, String type, int count, Instant firstAt, Instant lastAt, String samples) {
        JsonObjectBuilder summary = JSON.createObjectBuilder()
                .add("schema", SUMMARY_SCHEMA)
                .add("type", type)
                .add("count", count)
                .add("first", firstAt.truncatedTo(ChronoUnit.MILLIS).toString())
                .add("last", lastAt.truncatedTo(ChronoUnit.MILLIS).toString());
        for (String field : List.of("pipeline", "step", "reason", "cause", "who")) {
            JsonValue value = first.get(field);
            if (value != null) {
                summary.add(field, value);
            }
        }
        JsonArrayBuilder runIds = JSON.createArrayBuilder();
        for (String runId : samples.split(",")) {
            if (!runId.isEmpty()) {
                runIds.add(runId);
            }
        }
        return summary.add("sampleRunIds", runIds).add("firstEvent", first).build();
    }

    private static Instant instant(Object value) {
        if (value instanceof Timestamp t) {
            return t.toInstant();
        }
        if (value instanceof Instant i) {
            return i;
        }
        if (value instanceof java.time.OffsetDateTime o) {
            return o.toInstant();
        }
        return Instant.parse(value.toString());
    }
}
