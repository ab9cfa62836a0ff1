package dev.lazarus.sweep.control;

import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;

/**
 * When the last sweep of the installation finished, whichever node ran it (table {@code last_sweep}, one row).
 * Written by every sweep in a transaction of its own, so a sweep that failed halfway still says it ran.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
public class LastSweep {

    /** This node's name, as the timers and the transaction log know it. */
    public static final String NODE = System.getProperty("jboss.node.name", "local");

    @PersistenceContext
    EntityManager em;

    public void record(Sweeps.SweepReport report) {
        em.createNativeQuery("insert into last_sweep (id, finished_at, node, took_ms, candidates, dead_lettered)"
                        + " values (1, ?1, ?2, ?3, ?4, ?5) on conflict (id) do update set finished_at = excluded.finished_at,"
                        + " node = excluded.node, took_ms = excluded.took_ms, candidates = excluded.candidates,"
                        + " dead_lettered = excluded.dead_lettered")
                .setParameter(1, Timestamp.from(report.startedAt().plus(report.took())))
                .setParameter(2, NODE)
                .setParameter(3, report.took().toMillis())
                .setParameter(4, report.candidates())
                .setParameter(5, report.totalDeadLettered())
                .executeUpdate();
    }

    /** When the last sweep finished; empty before the first. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public Optional<Instant> finishedAt() {
        List<?> found = em.createNativeQuery("select finished_at from last_sweep where id = 1").getResultList();
        return found.stream().findFirst().map(LastSweep::instant);
    }

    private static Instant instant(Object value) {
        if (value instanceof Timestamp timestamp) {
            return timestamp.toInstant();
        }
        if (value instanceof OffsetDateTime offset) {
            return offset.toInstant();
        }
        if (value instanceof Instant instant) {
            return instant;
        }
        throw new IllegalStateException("unexpected type for last_sweep.finished_at: " + value.getClass());
    }
}
