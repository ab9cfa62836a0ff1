package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.deadletter.entity.DeadLetterStatus;
import dev.lazarus.platform.control.Locks;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Whether the open dead letters of a DLQ still have the message Lazarus parked for them: a bounded page per
 * call, least recently checked first, so that every dead letter is looked at in turn however many there are.
 *
 * <p>The page is locked as it is read, skipping dead letters another transaction holds (a requeue, an operator's
 * note): the check never waits for a row, so it can never deadlock with them, and what it skipped it checks next
 * time. (It used to read unlocked and write at commit, in its own order, and PostgreSQL then failed one side of
 * the deadlock, sometimes the operator's requeue.)
 */
@Stateless
public class ParkedMessageCheck {

    private static final Logger LOG = Logger.getLogger(ParkedMessageCheck.class.getName());

    @PersistenceContext
    EntityManager em;

    @Inject
    DeadLetterQueues deadLetterQueues;

    /** @return how many were newly flagged missing */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int check(String deadLetterQueue, Instant createdBefore, Instant now, int limit) {
        List<DeadLetter> page = Locks.skippingLocked(em.createQuery("select d from DeadLetter d where d.deadLetterQueue = :dlq"
                                + " and d.status in :open and d.parkedToken is not null and d.createdAt < :before"
                                + " order by d.dlqCheckedAt nulls first, d.id", DeadLetter.class)
                        .setParameter("dlq", deadLetterQueue)
                        .setParameter("open", DeadLetterStatus.OPEN)
                        .setParameter("before", createdBefore)
                        .setMaxResults(limit))
                .getResultList();
        if (page.isEmpty()) {
            return 0;
        }
        Set<Long> present = deadLetterQueues.present(deadLetterQueue, page);
        int flagged = 0;
        for (DeadLetter deadLetter : page) {
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
