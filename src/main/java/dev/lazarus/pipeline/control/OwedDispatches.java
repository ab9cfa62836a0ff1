package dev.lazarus.pipeline.control;

import dev.lazarus.platform.control.DatabaseTime;
import dev.lazarus.platform.control.TimerRuns;
import io.opentelemetry.context.Context;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.Query;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The database's side of {@link Dispatches}: which node incarnations are alive ({@code node_presence}), and the
 * dispatches a gone one may still owe ({@code run.dispatched_by} of its {@code PENDING} runs moved since its
 * {@code sent_until}). Liveness is judged on the database's clock, so the nodes' clocks need not agree; the runs' own
 * times are their node's, and so is {@code sent_until}, which is compared only with them. Each method is a transaction of
 * its own.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
public class OwedDispatches {

    /** A presence row of a gone incarnation that owes nothing is forgotten after this long. */
    private static final String FORGET_AFTER = "1 hour";

    @PersistenceContext
    EntityManager em;

    @Inject
    Pipelines pipelines;

    /** An incarnation that is gone, and until when what it recorded was sent (null: unknown, so all of it may be owed). */
    public record Gone(String incarnation, Instant sentUntil) {
    }

    /**
     * {@code current} is alive now, and everything it recorded until {@code sentUntil} was sent; {@code retired} (if not
     * null) is not alive any more, whatever it said before, and owes what it recorded after its own {@code sentUntil}.
     */
    public void seen(String current, Instant sentUntil, Dispatches.Retired retired) {
        em.createNativeQuery("insert into node_presence (incarnation, node, started_at, seen_at, sent_until)"
                        + " values (?1, ?2, now(), now(), ?3) on conflict (incarnation) do update set seen_at = now(), sent_until = ?3")
                .setParameter(1, current)
                .setParameter(2, TimerRuns.NODE)
                .setParameter(3, sentUntil)
                .executeUpdate();
        if (retired != null) {
            // inserted if it never said it was alive (it was retired within its first pass)
            em.createNativeQuery("insert into node_presence (incarnation, node, started_at, seen_at, retired_at, sent_until)"
                            + " values (?1, ?2, now(), now(), now(), ?3)"
                            + " on conflict (incarnation) do update set retired_at = now(), sent_until = ?3")
                    .setParameter(1, retired.incarnation())
                    .setParameter(2, TimerRuns.NODE)
                    .setParameter(3, retired.sentUntil())
                    .executeUpdate();
        }
    }

    /**
     * The incarnations that are gone and may owe dispatches: retired, silent for {@code silentAfter}, or of this node and
     * not seen since {@code current} started (this node started again after a crash).
     */
    public List<Gone> gone(String current, Duration silentAfter) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("select p.incarnation, p.sent_until from node_presence p where p.incarnation <> ?1"
                        + " and (p.retired_at is not null or p.seen_at < now() - cast(?2 as interval)"
                        + " or (p.node = ?3 and p.seen_at < (select c.started_at from node_presence c where c.incarnation = ?1)))")
                .setParameter(1, current)
                .setParameter(2, silentAfter.toMillis() + " milliseconds")
                .setParameter(3, TimerRuns.NODE)
                .getResultList();
        List<Gone> gone = new ArrayList<>(rows.size());
        for (Object[] row : rows) {
            gone.add(new Gone((String) row[0], row[1] == null ? null : DatabaseTime.instant(row[1])));
        }
        return gone;
    }

    /**
     * Incarnations that PENDING runs name but that never said they were alive, or whose row is forgotten (a node that
     * died before its first pass; a commit that named an incarnation long retired), for runs waiting longer than
     * {@code olderThan} ago: all their dispatches may be owed.
     */
    @SuppressWarnings("unchecked")
    public List<Gone> unknown(String current, Instant olderThan) {
        List<String> names = em.createNativeQuery("select distinct r.dispatched_by from run r where r.state = 'PENDING'"
                        + " and r.dispatched_by is not null and r.dispatched_by <> ?1 and r.updated_at < ?2"
                        + " and not exists (select 1 from node_presence p where p.incarnation = r.dispatched_by) limit 100")
                .setParameter(1, current)
                .setParameter(2, olderThan)
                .getResultList();
        return names.stream().map(name -> new Gone(name, null)).toList();
    }

    /**
     * Takes over up to {@code limit} dispatches that {@code gone} may owe (its runs still {@code PENDING}, moved since
     * its {@code sentUntil}): they now name {@code current} and count their wait from {@code now} (the taking-over
     * recording's start), and are sent once this commits. Runs another transaction holds are left for the next pass.
     */
    public List<StepDispatcher.Dispatch> takeOver(Gone gone, String current, Instant now, int limit) {
        Query query = em.createNativeQuery("update run r set dispatched_by = ?1, updated_at = ?2 where r.id in (select id from run"
                        + " where state = 'PENDING' and dispatched_by = ?3" + (gone.sentUntil() == null ? "" : " and updated_at >= ?5")
                        + " limit ?4 for update skip locked) returning r.id, r.pipeline, r.current_step, r.generation, r.trace_id")
                .setParameter(1, current)
                .setParameter(2, now)
                .setParameter(3, gone.incarnation())
                .setParameter(4, limit);
        if (gone.sentUntil() != null) {
            query.setParameter(5, gone.sentUntil());
        }
        @SuppressWarnings("unchecked")
        List<Object[]> rows = query.getResultList();
        List<StepDispatcher.Dispatch> dispatches = new ArrayList<>(rows.size());
        for (Object[] row : rows) {
            UUID run = (UUID) row[0];
            // a step this deployment no longer has: the sweeper's waiting-too-long detection ends the run
            pipelines.step((String) row[1], (String) row[2]).ifPresent(step -> dispatches.add(new StepDispatcher.Dispatch(step,
                    new StepMessage(run, step.name(), ((Number) row[3]).longValue()), (String) row[4], Context.root())));
        }
        return dispatches;
    }

    /** Forgets gone incarnations that owe nothing and have been gone a while (a late commit naming one is still found). */
    public int forgetIdle(String current) {
        return em.createNativeQuery("delete from node_presence p where p.incarnation <> ?1"
                        + " and coalesce(p.retired_at, p.seen_at) < now() - cast(?2 as interval)"
                        + " and not exists (select 1 from run r where r.state = 'PENDING' and r.dispatched_by = p.incarnation"
                        + " and (p.sent_until is null or r.updated_at >= p.sent_until))")
                .setParameter(1, current)
                .setParameter(2, FORGET_AFTER)
                .executeUpdate();
    }
}
