package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.deadletter.entity.DeadLetterEvent;
import dev.lazarus.deadletter.entity.DeadLetterFilter;
import dev.lazarus.pipeline.control.RunSearches;
import dev.lazarus.pipeline.entity.RunSearch;
import dev.lazarus.platform.control.Counted;
import dev.lazarus.deadletter.entity.Fingerprint;
import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.deadletter.entity.DeadLetterStatus;
import dev.lazarus.deadletter.entity.BulkJob;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttributeType;
import jakarta.ejb.TransactionAttribute;
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

    @jakarta.inject.Inject
    java.time.Clock clock;

    /** How many entries of a dead letter's audit trail its view shows: the newest (a trail can be added to without end). */
    public static final int TRAIL_SHOWN = 100;

    /** One dead letter, without its audit trail (see {@link #trail}: the trail has no bound, a view of it has). */
    public Optional<DeadLetter> find(long id) {
        return Optional.ofNullable(em.find(DeadLetter.class, id));
    }

    /** The newest {@code max} entries of a dead letter's audit trail, in the order they happened, and how many it has. */
    public Trail trail(long deadLetterId, int max) {
        long total = em.createQuery("select count(e) from DeadLetterEvent e where e.deadLetter.id = :id", Long.class)
                .setParameter("id", deadLetterId).getSingleResult();
        List<DeadLetterEvent> newest = new ArrayList<>(em.createQuery("select e from DeadLetterEvent e where e.deadLetter.id = :id"
                        + " order by e.at desc, e.id desc", DeadLetterEvent.class)
                .setParameter("id", deadLetterId).setMaxResults(max).getResultList());
        java.util.Collections.reverse(newest);
        return new Trail(newest, total);
    }

    /** Entries of an audit trail, oldest first, and how many the trail has in all ({@code total}). */
    public record Trail(List<DeadLetterEvent> entries, long total) {

        /** Whether older entries are left out. */
        public boolean cut() {
            return total > entries.size();
        }
    }

    /** Newest first, as summaries (what a list shows, nothing more). */
    public List<DeadLetterSummary> list(DeadLetterFilter filter, int offset, int limit) {
        return list(filter, RunSearch.NONE, offset, limit);
    }

    /** The same, of the dead letters whose runs a search finds ({@link RunSearches#condition}). */
    public List<DeadLetterSummary> list(DeadLetterFilter filter, RunSearch search, int offset, int limit) {
        RunSearches.planForTheseValues(em, search);
        Map<String, Object> parameters = new HashMap<>();
        TypedQuery<DeadLetterSummary> query = em.createQuery(DeadLetterSummary.SELECT + " where " + where(filter, search, parameters)
                + " order by d.createdAt desc, d.id desc", DeadLetterSummary.class);
        parameters.forEach(query::setParameter);
        return query.setParameter("limit", DeadLetterReason.REQUEUE_LIMIT).setFirstResult(offset).setMaxResults(limit).getResultList();
    }

    /** The summaries of these dead letters, in the order given (those that no longer exist left out). */
    public List<DeadLetterSummary> summaries(List<Long> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        Map<Long, DeadLetterSummary> found = em.createQuery(DeadLetterSummary.SELECT + " where d.id in :ids", DeadLetterSummary.class)
                .setParameter("ids", ids)
                .setParameter("limit", DeadLetterReason.REQUEUE_LIMIT)
                .getResultStream()
                .collect(java.util.stream.Collectors.toMap(DeadLetterSummary::id, summary -> summary));
        return ids.stream().map(found::get).filter(java.util.Objects::nonNull).toList();
    }

    /**
     * Gives up to {@code max} dead letters recorded before V14 (or by a node of an older version) their fingerprint, top
     * frame and root cause by today's rule, computed from what is stored by {@link Fingerprint#ofStored}, the same code
     * as a dead letter recorded from text; in a transaction of its own, the sweep calls it. Returns how many.
     *
     * <p>Only the columns it needs are read (not the run snapshots) and each row is written by a statement of its own,
     * not through its entity: an operator's change to the same dead letter meanwhile does not fail on its version. If
     * that change writes the row back as it read it, without a rule, the next sweep computes it again.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int fillMissingFingerprints(int max) {
        List<Object[]> missing = em.createQuery("select d.id, d.reason, d.exceptionClass, d.errorMessage, d.stackTrace from DeadLetter d"
                + " where d.fingerprintRule is null order by d.id", Object[].class).setMaxResults(max).getResultList();
        for (Object[] row : missing) {
            Fingerprint cause = Fingerprint.ofStored((DeadLetterReason) row[1], (String) row[2], (String) row[3], (String) row[4]);
            em.createQuery("update DeadLetter d set d.fingerprint = :key, d.topFrame = :topFrame, d.rootCause = :rootCause,"
                            + " d.fingerprintRule = :rule where d.id = :id and d.fingerprintRule is null")
                    .setParameter("key", cause.key())
                    .setParameter("topFrame", cause.topFrame())
                    .setParameter("rootCause", cause.rootCause())
                    .setParameter("rule", Fingerprint.RULE)
                    .setParameter("id", row[0])
                    .executeUpdate();
        }
        return missing.size();
    }

    /** The most groups {@link #causes} lists; the rest are counted in its totals. */
    static final int MAX_CAUSES = 50;

    /**
     * The dead letters of a filter grouped by cause (fingerprint), the largest group first, each described by its
     * newest dead letter: one grouping query and one for the examples, whatever the number of dead letters. What a
     * group shows was stored with its example when it was recorded: nothing is parsed here.
     */
    public Causes causes(DeadLetterFilter filter) {
        Map<String, Object> parameters = new HashMap<>();
        TypedQuery<Object[]> query = em.createQuery("select d.fingerprint, count(d), sum(case when d.status in :openStatuses then 1 else 0 end),"
                + " max(d.id) from DeadLetter d where " + where(filter, parameters) + " group by d.fingerprint order by count(d) desc, max(d.id) desc",
                Object[].class);
        parameters.forEach(query::setParameter);
        query.setParameter("openStatuses", DeadLetterStatus.OPEN);
        List<Object[]> rows = query.setMaxResults(MAX_CAUSES).getResultList();
        List<Long> examples = rows.stream().map(row -> ((Number) row[3]).longValue()).toList();
        Map<Long, Object[]> byId = new HashMap<>();
        if (!examples.isEmpty()) {
            // the columns a group shows, not the entities (their snapshots and stack traces are not needed here)
            em.createQuery("select d.id, d.reason, d.exceptionClass, d.topFrame, d.rootCause, d.errorMessage, d.stepName, d.createdAt"
                            + " from DeadLetter d where d.id in :ids", Object[].class).setParameter("ids", examples)
                    .getResultStream().forEach(example -> byId.put(((Number) example[0]).longValue(), example));
        }
        List<Cause> groups = new ArrayList<>();
        for (Object[] row : rows) {
            Object[] example = byId.get(((Number) row[3]).longValue());
            groups.add(new Cause((String) row[0], ((Number) row[1]).longValue(), ((Number) row[2]).longValue(), (DeadLetterReason) example[1],
                    (String) example[2], (String) example[3], (String) example[4], (String) example[5], (String) example[6],
                    ((Number) example[0]).longValue(), (Instant) example[7]));
        }
        Map<String, Object> again = new HashMap<>();
        TypedQuery<Object[]> totals = em.createQuery("select count(distinct d.fingerprint), count(d) from DeadLetter d where "
                + where(filter, again), Object[].class);
        again.forEach(totals::setParameter);
        Object[] counted = totals.getSingleResult();
        return new Causes(((Number) counted[0]).intValue(), ((Number) counted[1]).longValue(), groups);
    }

    /** {@code causes} groups of {@code deadLetters} in all; {@code groups} the largest of them. */
    public record Causes(int causes, long deadLetters, List<Cause> groups) {
    }

    /**
     * One cause: its fingerprint ({@code cause}, the filter value), how many dead letters share it (and how many are
     * open), and what its newest one says: its exception, where it was thrown and its root cause, as stored with it.
     */
    public record Cause(String cause, long count, long open, DeadLetterReason reason, String exceptionClass, String topFrame,
                        String rootCause, String exampleError, String exampleStep, long exampleId, Instant newest) {
    }

    public long count(DeadLetterFilter filter) {
        return count(filter, RunSearch.NONE);
    }

    public long count(DeadLetterFilter filter, RunSearch search) {
        RunSearches.planForTheseValues(em, search);
        Map<String, Object> parameters = new HashMap<>();
        TypedQuery<Long> query = em.createQuery("select count(d) from DeadLetter d where " + where(filter, search, parameters), Long.class);
        parameters.forEach(query::setParameter);
        return query.getSingleResult();
    }

    /**
     * The dead letters of the runs a search finds, counted up to {@link RunSearches#COUNT_CAP} (see {@code Runs#countFound}),
     * planned for the search's values ({@link RunSearches#planForTheseValues}). Read newest first, as the list is: the
     * count then costs what the page does. Unordered, a broad label's count was planned as a hash join reading the
     * search table from its start until a thousand of its rows had a dead letter: about 150 000 rows (0.1 s), where
     * walking the newest dead letters and looking up each one's run finds them in 3 000 lookups (20 ms). A rare label is
     * still read from its index first: sorting its few dead letters is cheap.
     */
    public Counted countFound(DeadLetterFilter filter, RunSearch search) {
        if (search == null || search.isEmpty()) {
            return new Counted(count(filter, search), false);
        }
        RunSearches.planForTheseValues(em, search);
        Map<String, Object> parameters = new HashMap<>();
        TypedQuery<Long> query = em.createQuery("select d.id from DeadLetter d where " + where(filter, search, parameters)
                + " order by d.createdAt desc, d.id desc", Long.class);
        parameters.forEach(query::setParameter);
        return Counted.upTo(RunSearches.COUNT_CAP, query.setMaxResults(RunSearches.COUNT_CAP + 1).getResultList().size());
    }

    /**
     * The dead letters that existed at a moment, as a page counted them: ids up to {@code newestId}, recorded no later
     * than {@code time}. Ids alone do not bound it (a node's block of ids, a sweep's batch may give a newer dead letter a
     * lower id): the time it was recorded bounds it too.
     */
    public record AsOf(long newestId, Instant time) implements java.io.Serializable {
    }

    /** The newest dead letter's id (0 if there is none) and the time now: what exists now, as {@link AsOf} bounds it. */
    public AsOf now(Instant time) {
        Long newest = em.createQuery("select max(d.id) from DeadLetter d", Long.class).getSingleResult();
        return new AsOf(newest == null ? 0 : newest, time);
    }

    /**
     * How many dead letters matching the filter a bulk job of {@code action} would act on (of those that existed
     * {@code asOf}, if not null): the dry run, and the same selection a job keeps as its items ({@link #keep}).
     */
    public long countFor(BulkJob.Action action, DeadLetterFilter filter, AsOf asOf) {
        Map<String, Object> parameters = new HashMap<>();
        TypedQuery<Long> query = em.createQuery("select count(d) from DeadLetter d where " + selection(action, filter, asOf, parameters),
                Long.class);
        parameters.forEach(query::setParameter);
        return query.getSingleResult();
    }

    /**
     * Keeps, as the job's items, the dead letters its filter selects for its action now (of those that existed
     * {@code asOf}, if not null), in one statement; returns how many: the job's count.
     */
    public int keep(BulkJob job, AsOf asOf) {
        Map<String, Object> parameters = new HashMap<>();
        var insert = em.createQuery("insert into BulkJobItem (jobId, deadLetterId) select :job, d.id from DeadLetter d where "
                + selection(job.action(), job.filter(), asOf, parameters));
        parameters.forEach(insert::setParameter);
        return insert.setParameter("job", job.id()).executeUpdate();
    }

    /**
     * The job's next items after its cursor, in id order ({@code ids}), and those of their dead letters that still exist
     * ({@code found}), locked for this transaction so no other action (an operator, another job) can take them meanwhile.
     */
    public Items lockNextItems(BulkJob job, int max) {
        List<Long> ids = em.createQuery("select i.deadLetterId from BulkJobItem i where i.jobId = :job and i.deadLetterId > :after"
                        + " order by i.deadLetterId", Long.class)
                .setParameter("job", job.id())
                .setParameter("after", job.cursorId())
                .setMaxResults(max)
                .getResultList();
        if (ids.isEmpty()) {
            return new Items(ids, List.of());
        }
        return new Items(ids, em.createQuery("select d from DeadLetter d where d.id in :ids order by d.id", DeadLetter.class)
                .setParameter("ids", ids)
                .setLockMode(LockModeType.PESSIMISTIC_WRITE)
                .getResultList());
    }

    /** A batch of a job's items: their ids, and their dead letters that still exist (the retention may have purged one). */
    public record Items(List<Long> ids, List<DeadLetter> found) {
    }

    /**
     * What a bulk job of {@code action} selects, as a condition over {@code d}: the open dead letters of the filter, and
     * of a requeue only those it can bring back ({@link #REQUEUEABLE}). A discard or a resolve closes any open one.
     */
    private static String selection(BulkJob.Action action, DeadLetterFilter filter, AsOf asOf, Map<String, Object> parameters) {
        StringBuilder condition = new StringBuilder(where(filter.open(), parameters));
        if (action == BulkJob.Action.REQUEUE) {
            condition.append(" and ").append(REQUEUEABLE);
            parameters.put("limit", DeadLetterReason.REQUEUE_LIMIT);
        }
        if (asOf != null) {
            condition.append(" and d.id <= :upTo and d.createdAt <= :asOf");
            parameters.put("upTo", asOf.newestId());
            parameters.put("asOf", asOf.time());
        }
        return condition.toString();
    }

    /**
     * Open dead letters matching the filter (its reason, pipeline and step; nothing else) in triage order: the highest
     * {@link TriageScore} first, then the oldest, each with its score and why. One query sorts and pages in the database
     * (the score of every open dead letter from its reason, its age, the open count of its cause group and whether its
     * step is held, each read once, not per row), one reads the page's summaries. Its size is {@code count(filter.open())}.
     */
    public List<Triaged> investigationQueue(DeadLetterFilter filter, int offset, int limit) {
        if (filter.status() != null || filter.runId() != null || filter.cause() != null || filter.from() != null || filter.to() != null
                || filter.errorContains() != null) {
            throw new IllegalArgumentException("the investigation queue is filtered by reason, pipeline and step only: " + filter);
        }
        Instant now = clock.instant();
        String open = DeadLetterStatus.OPEN.stream().map(status -> "'" + status.name() + "'").collect(java.util.stream.Collectors.joining(", "));
        String groupSize = "d.group_size";
        String held = "(case when c.state = '" + dev.lazarus.pipeline.entity.StepControl.State.HELD.name() + "' then 1 else 0 end)";
        // The size of each cause group is a window over every open dead letter, filtered afterwards (the group counts
        // the open ones outside the filter too): one sort, whatever the planner believes. A join to a grouped CTE was
        // planned as a nested loop re-aggregating the group per row while the table's statistics still said "empty",
        // which is the case after a burst of dead letters, when the queue is read most (1.6 s over 10 000 on two cores).
        StringBuilder sql = new StringBuilder("select d.id, ").append(groupSize).append(" as group_size, ").append(held).append(" as held from")
                .append(" (select o.id, o.reason, o.created_at, o.pipeline, o.step_name,")
                .append(" case when o.fingerprint is null then 1 else count(*) over (partition by o.fingerprint) end as group_size")
                .append(" from dead_letter o where o.status in (").append(open).append(")) d")
                .append(" left join step_control c on c.pipeline = d.pipeline and c.step_name = d.step_name")
                .append(" where 1 = 1");
        Map<String, Object> parameters = new HashMap<>(TriageScore.ageParameters(now));
        if (filter.reason() != null) {
            sql.append(" and d.reason = :reason");
            parameters.put("reason", filter.reason().name());
        }
        if (filter.pipeline() != null) {
            sql.append(" and d.pipeline = :pipeline");
            parameters.put("pipeline", filter.pipeline());
        }
        if (filter.step() != null) {
            sql.append(" and d.step_name = :step");
            parameters.put("step", filter.step());
        }
        sql.append(" order by ").append(TriageScore.sql(groupSize, held)).append(" desc, d.created_at, d.id");
        jakarta.persistence.Query query = em.createNativeQuery(sql.toString());
        parameters.forEach(query::setParameter);
        @SuppressWarnings("unchecked")
        List<Object[]> rows = query.setFirstResult(offset).setMaxResults(limit).getResultList();
        Map<Long, DeadLetterSummary> found = new HashMap<>();
        summaries(rows.stream().map(row -> ((Number) row[0]).longValue()).toList()).forEach(summary -> found.put(summary.id(), summary));
        List<Triaged> queue = new ArrayList<>();
        for (Object[] row : rows) {
            DeadLetterSummary summary = found.get(((Number) row[0]).longValue());
            if (summary != null && summary.isOpen()) { // closed between the two reads: not to triage any more
                queue.add(new Triaged(summary, TriageScore.of(summary.reason(), summary.createdAt(), now, ((Number) row[1]).longValue(),
                        ((Number) row[2]).intValue() == 1)));
            }
        }
        return queue;
    }

    /** An entry of the investigation queue: the dead letter and why it ranks where it does. */
    public record Triaged(DeadLetterSummary deadLetter, TriageScore score) {
    }

    /** What {@link DeadLetter#canBeRequeued()} says, as a condition: it holds its run, names a step, not the loop guard's. */
    static final String REQUEUEABLE = "d.openRunId is not null and d.stepName is not null and d.reason <> :limit";

    /** The filter and a search of the dead letters' runs as a JPQL condition over {@code d}. */
    static String where(DeadLetterFilter filter, RunSearch search, Map<String, Object> parameters) {
        String found = RunSearches.condition(search, "d.runId", parameters);
        return found == null ? where(filter, parameters) : where(filter, parameters) + " and " + found;
    }

    /** The filter as a JPQL condition over {@code d}; only what is set becomes a condition. */
    static String where(DeadLetterFilter filter, Map<String, Object> parameters) {
        List<String> conditions = new ArrayList<>();
        condition(conditions, parameters, "d.reason = :reason", "reason", filter.reason());
        condition(conditions, parameters, "d.status = :status", "status", filter.status());
        condition(conditions, parameters, "d.runId = :run", "run", filter.runId());
        condition(conditions, parameters, "d.status in :open", "open", filter.openOnly() ? DeadLetterStatus.OPEN : null);
        condition(conditions, parameters, "d.pipeline = :pipeline", "pipeline", filter.pipeline());
        condition(conditions, parameters, "d.stepName = :step", "step", filter.step());
        condition(conditions, parameters, "d.fingerprint = :cause", "cause", filter.cause());
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

    /**
     * The run's dead letter, with its audit trail: the latest of those that stopped it (never one about a message on its
     * own). While the run is {@code DEAD_LETTERED} it is the one that holds it, open, or closed by a resolve or a discard
     * (which leave the run where it stopped for good); once a requeue let go of it, it is the last one the run had.
     * Latest by dispatch: each stop is of a later dispatch than the one before it (a requeue gives the run a new
     * generation), which neither the ids (taken in blocks per node, a sweep's batch a value per row) nor the nodes'
     * clocks say reliably; then by when it was recorded.
     */
    public Optional<DeadLetter> latestFor(UUID runId) {
        return latestIdFor(runId).flatMap(this::find);
    }

    /** The same, as a summary. */
    public Optional<DeadLetterSummary> latestSummaryFor(UUID runId) {
        return latestIdFor(runId).flatMap(id -> summaries(List.of(id)).stream().findFirst());
    }

    private Optional<Long> latestIdFor(UUID runId) {
        return em.createQuery("select d.id from DeadLetter d where d.runId = :run and d.reason not in :aboutMessage"
                        + " order by d.generation desc nulls last, d.createdAt desc, d.id desc", Long.class)
                .setParameter("run", runId)
                .setParameter("aboutMessage", DeadLetterReason.ABOUT_A_MESSAGE)
                .setMaxResults(1)
                .getResultStream()
                .findFirst();
    }

    /** The dead letter recorded for this dispatch of the run (not one about a message on its own), open or not. */
    public Optional<DeadLetter> findForDispatch(UUID runId, long generation) {
        return em.createQuery("select d from DeadLetter d where d.runId = :run and d.generation = :generation"
                        + " and d.reason not in :aboutMessage order by d.id", DeadLetter.class)
                .setParameter("run", runId)
                .setParameter("generation", generation)
                .setParameter("aboutMessage", DeadLetterReason.ABOUT_A_MESSAGE)
                .setMaxResults(1)
                .getResultStream()
                .findFirst();
    }

    /** The dead letter a message out of a DLQ was parked with, locked, if its mark is genuine. */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public Optional<DeadLetter> lockedParkedWith(DeadLetterQueues.ParkedMark mark) {
        return Optional.ofNullable(em.find(DeadLetter.class, mark.deadLetterId(), LockModeType.PESSIMISTIC_WRITE))
                .filter(d -> d.parkedWith(mark.token()));
    }

    /** A dead letter about this message on its own (a refusal), recorded on this queue, if there is one. */
    public Optional<DeadLetter> findAboutMessage(String messageId, String queue) {
        if (messageId == null) {
            return Optional.empty();
        }
        return em.createQuery("select d from DeadLetter d where d.messageId = :message and d.queue = :queue"
                        + " and d.reason in :aboutMessage order by d.id", DeadLetter.class)
                .setParameter("message", messageId)
                .setParameter("queue", queue)
                .setParameter("aboutMessage", DeadLetterReason.ABOUT_A_MESSAGE)
                .setMaxResults(1)
                .getResultStream()
                .findFirst();
    }
}
