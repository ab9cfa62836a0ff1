package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.deadletter.entity.DeadLetterStatus;
import dev.lazarus.pipeline.entity.RunState;
import jakarta.annotation.Resource;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Purges dead letters that were closed (requeued, resolved or discarded) longer ago than
 * {@code lazarus.retention.resolved-after} (default 30 days), with their audit trail and with the message
 * Lazarus parked for them, if it is still in its DLQ: row and message go together, in one transaction, so a
 * purged dead letter's message can never come back as a new one. An open dead letter is never purged, however
 * old: nothing unresolved disappears silently. Nor is a resolved or discarded one that stopped a run still
 * {@code DEAD_LETTERED}: it holds that run for good (see {@link DeadLetterService}), and it is all that says why the
 * run stopped.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class Retention {

    static final List<DeadLetterStatus> CLOSED = List.of(DeadLetterStatus.REQUEUED, DeadLetterStatus.RESOLVED_MANUALLY,
            DeadLetterStatus.DISCARDED);

    /** Dead letters purged per transaction. */
    static final int BATCH = 500;

    @PersistenceContext
    EntityManager em;

    @Inject
    DeadLetterQueues deadLetterQueues;

    @Inject
    Clock clock;

    @Resource
    SessionContext session;

    @Inject
    @ConfigProperty(name = "lazarus.retention.resolved-after", defaultValue = "P30D")
    Duration resolvedAfter;

    /** @return how many dead letters were purged */
    public int purge() {
        Instant cutoff = clock.instant().minus(resolvedAfter);
        Retention self = session.getBusinessObject(Retention.class);
        int total = 0;
        int purged;
        do {
            purged = self.purgeBatch(cutoff);
            total += purged;
        } while (purged == BATCH);
        return total;
    }

    /** One batch: the rows, their audit trail (ON DELETE CASCADE) and their parked messages. */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int purgeBatch(Instant cutoff) {
        // a resolved or discarded dead letter that stopped its run holds it while the run is DEAD_LETTERED: kept
        List<DeadLetter> batch = em.createQuery("select d from DeadLetter d where d.status in :closed and d.closedAt < :cutoff"
                        + " and not (d.status <> :requeued and d.reason not in :aboutMessage and exists (select r.id from Run r"
                        + " where r.id = d.runId and r.state = :deadLettered)) order by d.id", DeadLetter.class)
                .setParameter("closed", CLOSED)
                .setParameter("cutoff", cutoff)
                .setParameter("requeued", DeadLetterStatus.REQUEUED)
                .setParameter("aboutMessage", DeadLetterReason.ABOUT_A_MESSAGE)
                .setParameter("deadLettered", RunState.DEAD_LETTERED)
                .setLockMode(LockModeType.PESSIMISTIC_WRITE)
                .setMaxResults(BATCH)
                .getResultList();
        if (batch.isEmpty()) {
            return 0;
        }
        Map<String, List<DeadLetter>> parkedByQueue = batch.stream().filter(DeadLetter::isParked)
                .collect(Collectors.groupingBy(DeadLetter::deadLetterQueue));
        parkedByQueue.forEach(deadLetterQueues::remove);
        em.createQuery("delete from DeadLetter d where d.id in :ids")
                .setParameter("ids", batch.stream().map(DeadLetter::id).toList())
                .executeUpdate();
        return batch.size();
    }

    /** Events are kept this long ({@code lazarus.events.keep-for}, default 7 days), then purged, whatever they tell. */
    @Inject
    @ConfigProperty(name = "lazarus.events.keep-for", defaultValue = "P7D")
    Duration eventsKeptFor;

    @Inject
    dev.lazarus.events.control.Events events;

    /** @return how many events were purged (older than {@code lazarus.events.keep-for}) */
    public int purgeEvents() {
        Instant cutoff = clock.instant().minus(eventsKeptFor);
        Retention self = session.getBusinessObject(Retention.class);
        int total = 0;
        int purged;
        do {
            purged = self.purgeEventBatch(cutoff);
            total += purged;
        } while (purged == BATCH);
        return total;
    }

    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int purgeEventBatch(Instant cutoff) {
        return events.purge(cutoff, BATCH);
    }

    public Duration eventsKeptFor() {
        return eventsKeptFor;
    }

    public Duration resolvedAfter() {
        return resolvedAfter;
    }
}
