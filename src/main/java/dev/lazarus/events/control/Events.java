package dev.lazarus.events.control;

import dev.lazarus.events.entity.Event;
import dev.lazarus.platform.control.AfterCommit;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.sql.Connection;
import javax.sql.DataSource;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The outbox: {@link #record} writes events as rows in the caller's transaction, and once that commits they are
 * published on the topic {@value #TOPIC} ({@link EventTopic}, on a thread of its own, so a slow broker never holds
 * the change that made them). A change that rolls back leaves neither row nor message. A node that dies between the
 * commit and the publication leaves the row without its message: followers that must see every event read
 * {@code GET /api/events?after=<id>}, which reads the rows.
 *
 * <p>The rows go through the persistence unit's datasource, which in the caller's transaction hands out the connection
 * Hibernate uses (as {@code StepRecords} does): the dead letters' entity listener records events while Hibernate
 * flushes, where the entity manager itself may not be used, and one statement per change (the id, the row and whether
 * a webhook wants it) keeps the dead-lettering path to one more round trip.
 */
@ApplicationScoped
public class Events {

    public static final String TOPIC = "lazarus.events";

    /** The start of an event's JSON before its id: the row keeps the rest, and the id joins them (see {@link #record}). */
    private static final String HEAD = "{\"schema\":\"" + EventJson.SCHEMA + "\",\"id\":";

    private static final String INSERT_ONE = "with next as (select nextval('lazarus_event_seq') as id)"
            + " insert into lazarus_event (id, type, at, body, pipeline, webhooks_pending)"
            + " select next.id, ?, ?, concat(?, next.id, ?), ?, exists (select 1 from webhook where enabled) from next returning id";

    private static final String INSERT = "insert into lazarus_event (id, type, at, body, pipeline, webhooks_pending)"
            + " values (?, ?, ?, ?, ?, exists (select 1 from webhook where enabled))";

    @PersistenceContext
    EntityManager em;

    @Resource(lookup = "java:jboss/datasources/LazarusDS")
    DataSource dataSource;

    @Inject
    AfterCommit afterCommit;

    @Inject
    EventTopic topic;

    @Resource
    ManagedExecutorService executor;

    /** Where the events' links start (see {@link EventJson#of}). */
    @Inject
    @ConfigProperty(name = "lazarus.events.link-base", defaultValue = "/lazarus")
    String linkBase;

    /** One stored event: its id, type and JSON. */
    public record Stored(long id, String type, String json) {
    }

    /** Records one event in the caller's transaction; published once it commits. */
    public void record(Event event) {
        record(List.of(event));
    }

    /** Records the events in the caller's transaction (a sweep's batch: two statements in all); published once it commits. */
    public void record(List<Event> events) {
        if (events.isEmpty()) {
            return;
        }
        List<Stored> stored;
        try (Connection connection = dataSource.getConnection()) {
            stored = events.size() == 1 ? List.of(insertOne(connection, events.get(0))) : insertAll(connection, events);
        } catch (SQLException e) {
            throw new jakarta.persistence.PersistenceException("could not record " + events.size() + " event(s): " + e.getMessage(), e);
        }
        afterCommit.run(() -> executor.execute(() -> topic.publish(stored)));
    }

    private Stored insertOne(Connection connection, Event event) throws SQLException {
        String rest = EventJson.of(0, event, linkBase).substring(HEAD.length() + 1); // ",\"type\":...}" after the id 0
        try (PreparedStatement insert = connection.prepareStatement(INSERT_ONE)) {
            insert.setString(1, event.type().wireName());
            insert.setTimestamp(2, Timestamp.from(event.at()));
            insert.setString(3, HEAD);
            insert.setString(4, rest);
            insert.setString(5, event.pipeline());
            try (ResultSet id = insert.executeQuery()) {
                id.next();
                long value = id.getLong(1);
                return new Stored(value, event.type().wireName(), HEAD + value + rest);
            }
        }
    }

    private List<Stored> insertAll(Connection connection, List<Event> events) throws SQLException {
        List<Long> ids = new ArrayList<>(events.size());
        try (PreparedStatement next = connection.prepareStatement("select nextval('lazarus_event_seq') from generate_series(1, ?)")) {
            next.setInt(1, events.size());
            try (ResultSet values = next.executeQuery()) {
                while (values.next()) {
                    ids.add(values.getLong(1));
                }
            }
        }
        List<Stored> stored = new ArrayList<>(events.size());
        try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
            for (int i = 0; i < events.size(); i++) {
                Event event = events.get(i);
                String json = EventJson.of(ids.get(i), event, linkBase);
                insert.setLong(1, ids.get(i));
                insert.setString(2, event.type().wireName());
                insert.setTimestamp(3, Timestamp.from(event.at()));
                insert.setString(4, json);
                insert.setString(5, event.pipeline());
                insert.addBatch();
                stored.add(new Stored(ids.get(i), event.type().wireName(), json));
            }
            insert.executeBatch();
        }
        return stored;
    }

    /**
     * The events every transaction still under way cannot precede: those of transactions older than the oldest one running
     * (prepared ones included). Ids come from a sequence when a change writes its event, and changes commit in their own
     * order, so event 101 can be readable while the change that wrote 100 is still under way; a follower that moved past
     * 101 by id would never see 100. Read in the order of the writing transactions instead, and only up to the oldest
     * one running, a follower's position ({@code after}: the last event it read) is passed by nothing that commits later.
     */
    private static final String SETTLED = "tx < pg_snapshot_xmin(pg_current_snapshot())";

    /**
     * The settled events after the event {@code id}, in the order of the transactions that wrote them, at most
     * {@code limit}. An {@code id} no longer stored (purged, or 0) reads the settled events with a greater id.
     */
    public Read after(long id, int limit) {
        List<Object[]> rows = em.createNativeQuery("select e.id, e.type, e.body from lazarus_event e where " + SETTLED + " and"
                        + " (case when exists (select 1 from lazarus_event p where p.id = ?1)"
                        + " then (e.tx, e.id) > (select p.tx, p.id from lazarus_event p where p.id = ?1) else e.id > ?1 end)"
                        + " order by e.tx, e.id", Object[].class)
                .setParameter(1, id)
                .setMaxResults(limit)
                .getResultList();
        List<Stored> found = rows.stream().map(Events::stored).toList();
        return new Read(found, found.isEmpty() ? id : found.get(found.size() - 1).id());
    }

    /** The newest {@code limit} settled events, oldest first. */
    public Read newest(int limit) {
        List<Object[]> rows = em.createNativeQuery("select id, type, body from (select id, type, body, tx from lazarus_event where "
                        + SETTLED + " order by tx desc, id desc limit ?1) newest order by tx, id", Object[].class)
                .setParameter(1, limit)
                .getResultList();
        List<Stored> found = rows.stream().map(Events::stored).toList();
        return new Read(found, found.isEmpty() ? 0 : found.get(found.size() - 1).id());
    }

    private static Stored stored(Object[] row) {
        return new Stored(((Number) row[0]).longValue(), (String) row[1], (String) row[2]);
    }

    /** Events to hand a follower, and the event to read on after. */
    public record Read(List<Stored> events, long last) {
    }

    /** Deletes the events recorded before {@code cutoff}, at most {@code batch} of them; how many it deleted. */
    public int purge(Instant cutoff, int batch) {
        return em.createNativeQuery("delete from lazarus_event where id in (select id from lazarus_event where at < ?1 limit ?2)")
                .setParameter(1, cutoff)
                .setParameter(2, batch)
                .executeUpdate();
    }
}
