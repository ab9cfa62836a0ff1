package dev.lazarus.pipeline.control;

import dev.lazarus.platform.control.TimerRuns;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The database's side of {@link Dispatches}: which node incarnations are alive ({@code node_presence}), and the
 * dispatches a dead one owes ({@code run.dispatched_by} of its {@code PENDING} runs). Times are the database's, so the
 * nodes' clocks need not agree. Each method is a transaction of its own.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
public class OwedDispatches {

    /** A presence row of a dead incarnation that owes nothing is forgotten after this long. */
    private static final String FORGET_AFTER = "1 hour";

    @PersistenceContext
    EntityManager em;

    @Inject
    Pipelines pipelines;

    /** {@code incarnation} is alive now; {@code retired} (if not null) is not, whatever it said before. */
    public void seen(String incarnation, String retired) {
        em.createNativeQuery("insert into node_presence (incarnation, node, started_at, seen_at) values (?1, ?2, now(), now())"
                        + " on conflict (incarnation) do update set seen_at = now()")
                .setParameter(1, incarnation)
                .setParameter(2, TimerRuns.NODE)
                .executeUpdate();
        if (retired != null) {
            em.createNativeQuery("update node_presence set seen_at = '-infinity' where incarnation = ?1")
                    .setParameter(1, retired)
                    .executeUpdate();
        }
    }

    /**
     * The incarnations that are gone and may owe dispatches: silent for {@code silentAfter}, and those of this node
     * that were not seen since {@code current} started (this node started again after a crash, or retired them).
     */
    @SuppressWarnings("unchecked")
    public List<String> gone(String current, Duration silentAfter) {
        return em.createNativeQuery("select p.incarnation from node_presence p where p.incarnation <> ?1 and (p.seen_at < now()"
                        + " - cast(?2 as interval) or (p.node = ?3 and p.seen_at < (select c.started_at from node_presence c"
                        + " where c.incarnation = ?1)))")
                .setParameter(1, current)
                .setParameter(2, silentAfter.toMillis() + " milliseconds")
                .setParameter(3, TimerRuns.NODE)
                .getResultList();
    }

    /**
     * Takes over up to {@code limit} dispatches that {@code gone} owes (its runs still {@code PENDING}): they now name
     * {@code current}, which sends them once this commits. Runs another transaction holds are left for the next pass.
     */
    public List<StepDispatcher.Dispatch> takeOver(String gone, String current, int limit) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("update run r set dispatched_by = ?1 where r.id in (select id from run"
                        + " where state = 'PENDING' and dispatched_by = ?2 limit ?3 for update skip locked)"
                        + " returning r.id, r.pipeline, r.current_step, r.generation, r.trace_id")
                .setParameter(1, current)
                .setParameter(2, gone)
                .setParameter(3, limit)
                .getResultList();
        List<StepDispatcher.Dispatch> dispatches = new ArrayList<>(rows.size());
        for (Object[] row : rows) {
            UUID run = (UUID) row[0];
            // a step this deployment no longer has: the sweeper's waiting-too-long detection ends the run
            pipelines.step((String) row[1], (String) row[2]).ifPresent(step -> dispatches.add(new StepDispatcher.Dispatch(step,
                    new StepMessage(run, step.name(), ((Number) row[3]).longValue()), (String) row[4], io.opentelemetry.context.Context.root())));
        }
        return dispatches;
    }

    /** Forgets dead incarnations that owe nothing and have been gone a while (a late commit naming one is still found). */
    public int forgetIdle(String current) {
        return em.createNativeQuery("delete from node_presence p where p.incarnation <> ?1 and p.seen_at < now() - cast(?2 as interval)"
                        + " and not exists (select 1 from run r where r.state = 'PENDING' and r.dispatched_by = p.incarnation)")
                .setParameter(1, current)
                .setParameter(2, FORGET_AFTER)
                .executeUpdate();
    }
}
