package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.deadletter.entity.DeadLetterFilter;
import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.deadletter.entity.DeadLetterStatus;
import dev.lazarus.deadletter.entity.RequeueJob;
import jakarta.ejb.Stateless;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.TypedQuery;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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

    /** Newest first. */
    public List<DeadLetter> list(DeadLetterFilter filter, int offset, int limit) {
        Map<String, Object> parameters = new HashMap<>();
        TypedQuery<DeadLetter> query = em.createQuery("select d from DeadLetter d where " + where(filter, parameters)
                + " order by d.createdAt desc, d.id desc", DeadLetter.class);
        parameters.forEach(query::setParameter);
        return query.setFirstResult(offset).setMaxResults(limit).getResultList();
    }

    public long count(DeadLetterFilter filter) {
        Map<String, Object> parameters = new HashMap<>();
        TypedQuery<Long> query = em.createQuery("select count(d) from DeadLetter d where " + where(filter, parameters), Long.class);
        parameters.forEach(query::setParameter);
        return query.getSingleResult();
    }

    /**
     * How many open dead letters matching the filter (up to id {@code upTo}) a requeue would bring back: the bulk
     * requeue's dry run, and the same selection its job then works through.
     */
    public long countRequeueable(DeadLetterFilter filter, long upTo) {
        Map<String, Object> parameters = new HashMap<>();
        TypedQuery<Long> query = em.createQuery("select count(d) from DeadLetter d where " + where(filter.open(), parameters)
                + " and " + REQUEUEABLE + " and d.id <= :upTo", Long.class);
        parameters.forEach(query::setParameter);
        return query.setParameter("limit", DeadLetterReason.REQUEUE_LIMIT).setParameter("upTo", upTo).getSingleResult();
    }

    /** The newest dead letter's id (0 if there is none). */
    public long newestId() {
        Long newest = em.createQuery("select max(d.id) from DeadLetter d", Long.class).getSingleResult();
        return newest == null ? 0 : newest;
    }

    /**
     * The next dead letters of the job's selection after its cursor, in id order, locked for this transaction so
     * no other requeue (an operator, another job) can take them meanwhile.
     */
    public List<DeadLetter> lockNextRequeueable(RequeueJob job, int max) {
        Map<String, Object> parameters = new HashMap<>();
        TypedQuery<DeadLetter> query = em.createQuery("select d from DeadLetter d where " + where(job.filter().open(), parameters)
                + " and " + REQUEUEABLE + " and d.id > :after and d.id <= :upTo order by d.id", DeadLetter.class);
        parameters.forEach(query::setParameter);
        return query.setParameter("limit", DeadLetterReason.REQUEUE_LIMIT)
                .setParameter("after", job.cursorId())
                .setParameter("upTo", job.maxDeadLetterId())
                .setLockMode(LockModeType.PESSIMISTIC_WRITE)
                .setMaxResults(max)
                .getResultList();
    }

    /**
     * Open dead letters matching the filter in triage order: the reason's priority first (from the
     * registry), then the oldest. Its size is {@code count(filter.open())}.
     */
    public List<DeadLetter> investigationQueue(DeadLetterFilter filter, int offset, int limit) {
        Map<String, Object> parameters = new HashMap<>();
        TypedQuery<DeadLetter> query = em.createQuery("select d from DeadLetter d where " + where(filter.open(), parameters)
                + " order by " + priorityOrder() + ", d.createdAt, d.id", DeadLetter.class);
        parameters.forEach(query::setParameter);
        return query.setFirstResult(offset).setMaxResults(limit).getResultList();
    }

    /** The registry's priorities as an ORDER BY expression, so the database sorts and pages. */
    private static String priorityOrder() {
        StringBuilder order = new StringBuilder("case");
        for (DeadLetterReason reason : DeadLetterReason.values()) {
            order.append(" when d.reason = ").append(DeadLetterReason.class.getName()).append('.').append(reason.name())
                    .append(" then ").append(reason.priority());
        }
        return order.append(" else 99 end").toString();
    }

    /** What {@link DeadLetter#canBeRequeued()} says, as a condition: it holds its run, names a step, not the loop guard's. */
    private static final String REQUEUEABLE = "d.openRunId is not null and d.stepName is not null and d.reason <> :limit";

    /** The filter as a JPQL condition over {@code d}; only what is set becomes a condition. */
    static String where(DeadLetterFilter filter, Map<String, Object> parameters) {
        List<String> conditions = new ArrayList<>();
        condition(conditions, parameters, "d.reason = :reason", "reason", filter.reason());
        condition(conditions, parameters, "d.status = :status", "status", filter.status());
        condition(conditions, parameters, "d.runId = :run", "run", filter.runId());
        condition(conditions, parameters, "d.status in :open", "open", filter.openOnly() ? DeadLetterStatus.OPEN : null);
        condition(conditions, parameters, "d.pipeline = :pipeline", "pipeline", filter.pipeline());
        condition(conditions, parameters, "d.stepName = :step", "step", filter.step());
        condition(conditions, parameters, "d.createdAt >= :from", "from", filter.from());
        condition(conditions, parameters, "d.createdAt < :to", "to", filter.to());
        condition(conditions, parameters, "lower(d.errorMessage) like :error escape '!'", "error",
                filter.errorContains() == null ? null : "%" + filter.errorContains().toLowerCase(Locale.ROOT)
                        .replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%");
        return conditions.isEmpty() ? "1 = 1" : String.join(" and ", conditions);
    }

    private static void condition(List<String> conditions, Map<String, Object> parameters, String condition, String name, Object value) {
        if (value != null) {
            conditions.add(condition);
            parameters.put(name, value);
        }
    }

    /** When the dead letters since {@code since} were created (at most 50 000): the dashboard's chart. */
    public List<Instant> createdSince(Instant since) {
        return em.createQuery("select d.createdAt from DeadLetter d where d.createdAt >= :since", Instant.class)
                .setParameter("since", since).setMaxResults(50_000).getResultList();
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
}
