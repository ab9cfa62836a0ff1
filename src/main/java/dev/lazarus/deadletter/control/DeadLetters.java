package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.deadletter.entity.DeadLetterStatus;
import jakarta.ejb.Stateless;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Reading dead letters: what the admin pages and the API list. */
@Stateless
public class DeadLetters {

    @PersistenceContext
    EntityManager em;

    /** One dead letter with its audit trail loaded, ready to be shown after the transaction. */
    public Optional<DeadLetter> find(long id) {
        return em.createQuery("select d from DeadLetter d left join fetch d.events where d.id = :id", DeadLetter.class)
                .setParameter("id", id)
                .getResultStream()
                .findFirst();
    }

    /** Newest first. Null filters match everything; {@code open} true for pending and investigating only. */
    public List<DeadLetter> list(Filter filter, int offset, int limit) {
        return em.createQuery("select d from DeadLetter d where " + WHERE + " order by d.createdAt desc, d.id desc", DeadLetter.class)
                .setParameter("reason", filter.reason())
                .setParameter("status", filter.status())
                .setParameter("run", filter.runId())
                .setParameter("openOnly", filter.openOnly())
                .setParameter("open", List.of(DeadLetterStatus.PENDING, DeadLetterStatus.INVESTIGATING))
                .setFirstResult(offset)
                .setMaxResults(limit)
                .getResultList();
    }

    public long count(Filter filter) {
        return em.createQuery("select count(d) from DeadLetter d where " + WHERE, Long.class)
                .setParameter("reason", filter.reason())
                .setParameter("status", filter.status())
                .setParameter("run", filter.runId())
                .setParameter("openOnly", filter.openOnly())
                .setParameter("open", List.of(DeadLetterStatus.PENDING, DeadLetterStatus.INVESTIGATING))
                .getSingleResult();
    }

    /** The newest dead letter of a run, open or not, with its audit trail. */
    public Optional<DeadLetter> latestFor(UUID runId) {
        return em.createQuery("select max(d.id) from DeadLetter d where d.runId = :run", Long.class)
                .setParameter("run", runId)
                .getResultStream()
                .filter(java.util.Objects::nonNull)
                .findFirst()
                .flatMap(this::find);
    }

    private static final String WHERE = "(:reason is null or d.reason = :reason)"
            + " and (:status is null or d.status = :status)"
            + " and (:run is null or d.runId = :run)"
            + " and (:openOnly = false or d.status in :open)";

    public record Filter(DeadLetterReason reason, DeadLetterStatus status, UUID runId, boolean openOnly) {
        public static final Filter ALL = new Filter(null, null, null, false);
    }
}
