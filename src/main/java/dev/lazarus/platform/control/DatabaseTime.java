package dev.lazarus.platform.control;

import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;

/**
 * The database's clock: the one clock every node shares. What one node writes and another judges by its age (a
 * bulk job's last progress, a timer's last run) is stamped and judged by it, so the nodes' own clocks need not
 * agree.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.SUPPORTS)
public class DatabaseTime {

    @PersistenceContext
    EntityManager em;

    /** The database's time now (not its transaction's start: a batch may have taken a while). */
    public Instant now() {
        return instant(em.createNativeQuery("select clock_timestamp()").getSingleResult());
    }

    /** A time a native query returned, whichever type the driver gave it. */
    public static Instant instant(Object value) {
        if (value instanceof Timestamp timestamp) {
            return timestamp.toInstant();
        }
        if (value instanceof OffsetDateTime offset) {
            return offset.toInstant();
        }
        if (value instanceof Instant instant) {
            return instant;
        }
        throw new IllegalStateException("unexpected type for a database time: " + value.getClass());
    }
}
