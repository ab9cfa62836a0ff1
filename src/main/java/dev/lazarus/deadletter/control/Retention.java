package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetterStatus;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Purges dead letters that were closed (requeued, resolved or discarded) longer ago than
 * {@code lazarus.retention.resolved-after} (default 30 days), with their audit trail. An open dead letter
 * is never purged, however old: nothing unresolved disappears silently.
 */
@Stateless
public class Retention {

    static final List<DeadLetterStatus> CLOSED = List.of(DeadLetterStatus.REQUEUED, DeadLetterStatus.RESOLVED_MANUALLY,
            DeadLetterStatus.DISCARDED);

    @PersistenceContext
    EntityManager em;

    @Inject
    Clock clock;

    @Inject
    @ConfigProperty(name = "lazarus.retention.resolved-after", defaultValue = "P30D")
    Duration resolvedAfter;

    /** @return how many dead letters were purged */
    public int purge() {
        Instant cutoff = clock.instant().minus(resolvedAfter);
        // the audit trail goes with them: dead_letter_event has ON DELETE CASCADE
        return em.createQuery("delete from DeadLetter d where d.status in :closed and d.closedAt < :cutoff")
                .setParameter("closed", CLOSED)
                .setParameter("cutoff", cutoff)
                .executeUpdate();
    }

    public Duration resolvedAfter() {
        return resolvedAfter;
    }
}
