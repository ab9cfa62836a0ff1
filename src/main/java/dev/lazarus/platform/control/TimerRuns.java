package dev.lazarus.platform.control;

import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * When each persistent timer of the installation last finished (table {@code timer_run}), and the watchdogs'
 * claims on overdue ones. Times are the database's ({@code now()}), so the nodes' clocks need not agree.
 *
 * <p>Why: with WildFly's database timer store each firing runs on one node, the one that marks the timer's row
 * as running; a node killed in the middle of a firing leaves it marked, and no other node fires that timer
 * again until the node is back under its name. Each node therefore runs a non-persistent watchdog per timer
 * ({@link #claimOverdue}): when a timer has not finished for its overdue period, one node (the one whose claim
 * succeeds) does the work instead. The work itself is safe on several nodes at once; the claim only keeps every
 * node from piling on.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
public class TimerRuns {

    /** This node's name, as the timers and the transaction log know it. */
    public static final String NODE = System.getProperty("jboss.node.name", "local");

    @PersistenceContext
    EntityManager em;

    /** The timer {@code name} finished now, after {@code took}. */
    public void finished(String name, Duration took) {
        em.createNativeQuery("insert into timer_run (name, finished_at, node, took_ms) values (?1, now(), ?2, ?3)"
                        + " on conflict (name) do update set finished_at = now(), node = excluded.node, took_ms = excluded.took_ms")
                .setParameter(1, name)
                .setParameter(2, NODE)
                .setParameter(3, took.toMillis())
                .executeUpdate();
    }

    /**
     * Whether this node takes over the timer {@code name}: true for exactly one caller when the timer has not
     * finished for {@code overdue} and no watchdog claimed it within {@code overdue}. A timer that never finished
     * counts from the first time any node asked.
     */
    public boolean claimOverdue(String name, Duration overdue) {
        em.createNativeQuery("insert into timer_run (name, finished_at, node, took_ms) values (?1, now(), ?2, 0)"
                        + " on conflict (name) do nothing")
                .setParameter(1, name)
                .setParameter(2, NODE + " (first watched)")
                .executeUpdate();
        String interval = overdue.toMillis() + " milliseconds";
        return em.createNativeQuery("update timer_run set claimed_at = now(), claimed_by = ?1 where name = ?2"
                        + " and finished_at < now() - cast(?3 as interval)"
                        + " and (claimed_at is null or claimed_at < now() - cast(?3 as interval))")
                .setParameter(1, NODE)
                .setParameter(2, name)
                .setParameter(3, interval)
                .executeUpdate() == 1;
    }

    /** When the timer {@code name} last finished; empty before its first run. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public Optional<Instant> finishedAt(String name) {
        List<?> found = em.createNativeQuery("select finished_at from timer_run where name = ?1").setParameter(1, name)
                .getResultList();
        return found.stream().findFirst().map(DatabaseTime::instant);
    }
}
