package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.deadletter.entity.DeadLetterStatus;
import dev.lazarus.platform.control.Locks;
import jakarta.annotation.Resource;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * Whether the open dead letters of a DLQ still have the message Lazarus parked for them: a bounded page per
 * call, least recently checked first, so that every dead letter is looked at in turn however many there are.
 *
 * <p>The brokers are asked with no row locked; what was found is then written with the page locked, skipping dead
 * letters another transaction holds (a requeue, an operator's note): the check never waits for a row, so it can
 * never deadlock with them, and what it skipped it checks next time. (It used to read unlocked and write at
 * commit, in its own order, and PostgreSQL then failed one side of the deadlock, sometimes the operator's
 * requeue.)
 */
@Stateless
public class ParkedMessageCheck {

    private static final Logger LOG = Logger.getLogger(ParkedMessageCheck.class.getName());

    @PersistenceContext
    EntityManager em;

    @Inject
    DeadLetterQueues deadLetterQueues;

    @Resource
    SessionContext session;

    /**
     * Reads a page of open dead letters, looks for their messages on every broker, then records what it found in a
     * transaction of its own. No row is locked while the brokers are asked (a slow broker would hold them up for its
     * timeouts, and every requeue and consumer that needs one of them with it).
     *
     * @return how many were newly flagged missing
     */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public int check(String deadLetterQueue, Instant createdBefore, Instant now, int limit) {
        List<DeadLetter> page = em.createQuery("select d from DeadLetter d where d.deadLetterQueue = :dlq"
                                + " and d.status in :open and d.parkedToken is not null and d.createdAt < :before"
                                + " order by d.dlqCheckedAt nulls first, d.id", DeadLetter.class)
                        .setParameter("dlq", deadLetterQueue)
                        .setParameter("open", DeadLetterStatus.OPEN)
                        .setParameter("before", createdBefore)
                        .setMaxResults(limit)
                .getResultList();
        if (page.isEmpty()) {
            return 0;
        }
        Set<Long> present = deadLetterQueues.present(deadLetterQueue, page);
        Map<Long, String> looked = page.stream().collect(Collectors.toMap(DeadLetter::id, DeadLetter::parkedToken));
        return session.getBusinessObject(ParkedMessageCheck.class).record(deadLetterQueue, looked, present, now);
    }

    /**
     * Records what {@link #check} found, for the dead letters still open and parked with the token it looked for.
     * They are locked skipping those another transaction holds (a requeue, an operator's note): this never waits
     * for a row, so it can never deadlock with them, and what it skipped is checked next time.
     *
     * @param looked  the dead letters looked for, with the token each was parked with
     * @param present those whose message was found
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int record(String deadLetterQueue, Map<Long, String> looked, Set<Long> present, Instant now) {
        List<DeadLetter> locked = Locks.skippingLocked(em.createQuery("select d from DeadLetter d where d.id in :ids"
                        + " and d.status in :open order by d.id", DeadLetter.class)
                        .setParameter("ids", looked.keySet())
                        .setParameter("open", DeadLetterStatus.OPEN))
                .getResultList();
        int flagged = 0;
        for (DeadLetter deadLetter : locked) {
            if (!java.util.Objects.equals(looked.get(deadLetter.id()), deadLetter.parkedToken())) {
                continue; // parked again meanwhile (a console Retry refused, say): the next pass looks for the new one
            }
            boolean wasMissing = deadLetter.dlqMessageMissing();
            deadLetter.dlqMessagePresent(present.contains(deadLetter.id()), now);
            if (!wasMissing && deadLetter.dlqMessageMissing()) {
                flagged++;
                LOG.log(Level.WARNING, "Dead letter {0}: its message is no longer in {1}", new Object[] {deadLetter.id(), deadLetterQueue});
            }
        }
        return flagged;
    }
}
