package dev.lazarus.it;

import dev.lazarus.deadletter.control.DeadLetterReport;
import dev.lazarus.deadletter.control.DeadLetterService;
import dev.lazarus.deadletter.control.BulkJobBatches;
import dev.lazarus.deadletter.control.BulkJobStore;
import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.deadletter.entity.DeadLetterFilter;
import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.deadletter.entity.BulkJob;
import dev.lazarus.demo.control.DocumentIngestion;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.RunState;
import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Puts the real database and broker into states that are slow or impossible to reach through the API
 * (a run silent for an hour, a dead letter closed 40 days ago, a broken table), for the in-container
 * tests. Deployed only with them, never in the application.
 */
@Stateless
@jakarta.annotation.security.RunAs("operator") // what it calls on the operator's behalf, e.g. a bulk job's batch
@jakarta.annotation.security.PermitAll // its own methods: the tests call them unauthenticated
public class TestFixtures {

    @PersistenceContext
    EntityManager em;

    @Resource(lookup = "java:jboss/datasources/LazarusDS")
    DataSource dataSource;

    @Inject
    JMSContext jms;

    @Inject
    DeadLetterService deadLetters;

    @Inject
    BulkJobStore bulkJobs;

    @Inject
    BulkJobBatches bulkJobBatches;

    /** The runs {@link #runIn} made in this deployment: live ones, without a message, until {@link #endRunsMade}. */
    private static final java.util.Set<UUID> MADE = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** A demo run at {@code step}, in {@code state} since {@code since} (and no message anywhere). */
    public UUID runIn(RunState state, String step, Instant since) {
        Run run = new Run(DocumentIngestion.NAME, step, "{}", since);
        if (state == RunState.IN_PROGRESS || state == RunState.RETRYING) {
            run.attemptStarted(since);
        }
        if (state == RunState.RETRYING) {
            run.attemptFailed(since);
        }
        em.persist(run);
        MADE.add(run.id());
        return run.id();
    }

    /**
     * Ends the runs {@link #runIn} made that are still live (they have no message: nothing would end them but the
     * sweeper, up to 15 minutes later, with a dead letter and its event in whichever test class runs then); how many.
     */
    public int endRunsMade() {
        List<UUID> made = List.copyOf(MADE);
        MADE.removeAll(made);
        if (made.isEmpty()) {
            return 0;
        }
        // one an open dead letter holds is left as it is: the sweeper does not take it, and the dead letter is the test's
        return em.createNativeQuery("update run set state = 'COMPLETED' where id in (:ids) and state in ('PENDING', 'IN_PROGRESS', 'RETRYING')"
                        + " and not exists (select 1 from dead_letter d where d.open_run_id = run.id)")
                .setParameter("ids", made).executeUpdate();
    }

    @Resource
    jakarta.ejb.SessionContext session;

    /** A run stored in a transaction that then rolls back: it never existed. */
    public UUID runRolledBack() {
        UUID run = runIn(RunState.PENDING, "fetch", Instant.now());
        em.flush(); // written, so every listener has seen it, and then undone
        session.setRollbackOnly();
        return run;
    }

    /**
     * What {@code work} returns, done in a transaction of its own that then rolls back: what it wrote was seen by
     * nothing outside it (no sweep takes a run it made), and never existed.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public <T> T inATransactionThatRollsBack(java.util.function.Supplier<T> work) {
        T result = work.get();
        em.flush(); // every change written, so that queries in it see them, and then undone
        session.setRollbackOnly();
        return result;
    }

    public RunState stateOf(UUID run) {
        return em.find(Run.class, run).state();
    }

    public List<DeadLetter> deadLettersOf(UUID run) {
        List<DeadLetter> found = em.createQuery("select d from DeadLetter d where d.runId = :run order by d.id", DeadLetter.class)
                .setParameter("run", run).getResultList();
        found.forEach(d -> d.events().size()); // load the trail before the transaction ends
        return found;
    }

    public DeadLetter deadLetter(long id) {
        DeadLetter found = em.find(DeadLetter.class, id);
        if (found != null) {
            found.events().size();
        }
        return found;
    }

    /** A dead letter created at {@code createdAt}, discarded at {@code closedAt} (or open if null). */
    public long deadLetterAt(Instant createdAt, Instant closedAt) {
        DeadLetter deadLetter = new DeadLetter(DeadLetterReason.MANUAL, DocumentIngestion.FETCH_QUEUE,
                "DLQ." + DocumentIngestion.FETCH_QUEUE, "test", createdAt);
        if (closedAt != null) {
            deadLetter.discard("test", "closed by the fixture", closedAt);
        }
        em.persist(deadLetter);
        em.flush();
        return deadLetter.id();
    }

    /** An open dead letter in {@code DLQ.<queue>}, created at {@code createdAt}, marked as parked (its message is not there). */
    public long parkedDeadLetterAt(String queue, Instant createdAt) {
        DeadLetter deadLetter = new DeadLetter(DeadLetterReason.MANUAL, queue, "DLQ." + queue, "test", createdAt);
        deadLetter.markParked();
        em.persist(deadLetter);
        em.flush();
        return deadLetter.id();
    }

    /**
     * Holds the dead letter's row lock, as a requeue does while it takes the message and sends the next one, from
     * when {@code locked} is counted down until {@code release} is (at most a minute).
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public void holdLockOn(long deadLetterId, java.util.concurrent.CountDownLatch locked, java.util.concurrent.CountDownLatch release)
            throws InterruptedException {
        em.find(DeadLetter.class, deadLetterId, jakarta.persistence.LockModeType.PESSIMISTIC_WRITE);
        locked.countDown();
        release.await(1, java.util.concurrent.TimeUnit.MINUTES);
    }

    /**
     * Writes an event row (body {@code {"marker": ...}}) in a transaction of its own and keeps that transaction open from
     * {@code written} until {@code release}: a change that has written its event and not committed yet.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public void writeEventAndWait(String marker, java.util.concurrent.CountDownLatch written, java.util.concurrent.CountDownLatch release)
            throws InterruptedException {
        writeEvent(marker);
        written.countDown();
        release.await(1, java.util.concurrent.TimeUnit.MINUTES);
    }

    /** Writes an event row (body {@code {"marker": ...}}) in the caller's transaction. */
    public void writeEvent(String marker) {
        em.createNativeQuery("insert into lazarus_event (id, type, at, body, pipeline) values (nextval('lazarus_event_seq'), 'held', now(),"
                + " ?1, 'events-follow-test')").setParameter(1, "{\"marker\":\"" + marker + "\"}").executeUpdate();
    }

    /**
     * Records a dead letter as a sweep does: the run locked first, the dead letter written at flush, in a
     * transaction of its own; between the two it waits from {@code locked} until {@code proceed}.
     *
     * @return the dead letter the report ended in
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public long recordWithTheRunLockedFirst(UUID runId, DeadLetterReport report, java.util.concurrent.CountDownLatch locked,
                                            java.util.concurrent.CountDownLatch proceed) throws InterruptedException {
        Run run = em.find(Run.class, runId, jakarta.persistence.LockModeType.PESSIMISTIC_WRITE);
        locked.countDown();
        proceed.await(1, java.util.concurrent.TimeUnit.MINUTES);
        deadLetters.recordSweepBatch(List.of(report), List.of(run)); // as a sweep records, with the run it locked
        return em.createQuery("select d.id from DeadLetter d where d.openRunId = :run", Long.class).setParameter("run", runId)
                .getSingleResult();
    }

    @Inject
    dev.lazarus.pipeline.control.StepRecords records;

    @Inject
    dev.lazarus.pipeline.control.Dispatches dispatches;

    @Inject
    dev.lazarus.pipeline.control.Pipelines pipelines;

    /**
     * A consumer whose step succeeds, in a transaction of its own: it reads the run as a delivery does, waits from
     * {@code read} until {@code proceed}, then records the success (moving the run on, sending the next step's message).
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public void succeedAfterAWait(UUID runId, String step, java.util.concurrent.CountDownLatch read,
                                  java.util.concurrent.CountDownLatch proceed) throws InterruptedException {
        Run run = em.find(Run.class, runId);
        dev.lazarus.pipeline.control.StepMessage message = new dev.lazarus.pipeline.control.StepMessage(runId, step, run.generation());
        read.countDown();
        proceed.await(1, java.util.concurrent.TimeUnit.MINUTES);
        records.succeeded(message, pipelines.step(run.pipeline(), step).orElseThrow(), 1, "{\"done\":true}", dispatches.incarnation());
    }

    /**
     * A consumer whose step succeeds, in a transaction of its own: it records the success (the run's row now written and
     * locked) and waits from {@code written} until {@code proceed} before it commits. The next step's dispatch it made is
     * returned: the caller sends it, as the consumer does once the step's transaction has committed.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public java.util.Optional<dev.lazarus.pipeline.control.StepDispatcher.Dispatch> succeedAndWaitBeforeCommitting(UUID runId,
            String step, java.util.concurrent.CountDownLatch written, java.util.concurrent.CountDownLatch proceed)
            throws InterruptedException {
        Run run = em.find(Run.class, runId);
        var next = records.succeeded(new dev.lazarus.pipeline.control.StepMessage(runId, step, run.generation()),
                pipelines.step(run.pipeline(), step).orElseThrow(), 1, "{\"done\":true}", dispatches.incarnation());
        written.countDown();
        proceed.await(1, java.util.concurrent.TimeUnit.MINUTES);
        return next;
    }

    public String currentStepOf(UUID run) {
        return em.find(Run.class, run).currentStep();
    }

    public long generationOf(UUID run) {
        return em.find(Run.class, run).generation();
    }

    /** How many database sessions wait for a lock right now. */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public int sessionsWaitingForALock() {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             var result = statement.executeQuery("select count(*) from pg_locks where not granted")) {
            result.next();
            return result.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /**
     * A bulk job of {@code action} for what {@code filter} selects, counted as a job is when it starts, left running by
     * {@code node} with its last progress at {@code updatedAt}; no worker runs it.
     */
    public long runningBulkJob(BulkJob.Action action, DeadLetterFilter filter, String node, Instant updatedAt) {
        long job = bulkJobs.create(action, action.closes() ? "started by the test" : null, filter, 0, "operator", node, updatedAt,
                null, -1).id();
        update("update bulk_job set updated_at = ? where id = ?", updatedAt, job);
        return job;
    }

    /** A bulk requeue job of every open dead letter, left running by {@code node}, whose last progress was at {@code updatedAt}. */
    public long runningRequeueJob(String node, Instant updatedAt) {
        return runningBulkJob(BulkJob.Action.REQUEUE, DeadLetterFilter.ALL.open(), node, updatedAt);
    }

    /** One batch of a bulk job, as its worker runs it. */
    public int bulkBatch(long jobId) {
        return bulkJobBatches.next(jobId, 100);
    }

    public BulkJob bulkJob(long id) {
        return em.find(BulkJob.class, id);
    }

    /** The persistent EJB timers in the database's timer store: "timed object id / timeout method" each. */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public List<String> persistentTimers() {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             var result = statement.executeQuery("select timed_object_id, timeout_method_name from jboss_ejb_timer")) {
            List<String> timers = new java.util.ArrayList<>();
            while (result.next()) {
                timers.add(result.getString(1) + " / " + result.getString(2));
            }
            return timers;
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** The first column of every row a query returns, as text. */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public List<String> column(String sql) {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             var result = statement.executeQuery(sql)) {
            List<String> values = new java.util.ArrayList<>();
            while (result.next()) {
                values.add(result.getString(1));
            }
            return values;
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** Runs DDL outside any transaction, as an administrator would. */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public void execute(String sql) {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** How many of the run's messages are in the parse step's DLQ (left in place). */
    public int inParseDlq(UUID run) {
        return count("DLQ." + DocumentIngestion.PARSE_QUEUE, run);
    }

    /** How many of the run's messages are in the index step's DLQ (left in place). */
    public int inIndexDlq(UUID run) {
        return count("DLQ." + DocumentIngestion.INDEX_QUEUE, run);
    }

    private int count(String queue, UUID run) {
        try (var browser = jms.createBrowser(jms.createQueue(queue), "lazarusRunId = '" + run + "'")) {
            return java.util.Collections.list(browser.getEnumeration()).size();
        } catch (jakarta.jms.JMSException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Removes the run's messages from a queue, as a purge in the Artemis console would. */
    public int purge(String queue, UUID run) {
        int purged = 0;
        try (JMSConsumer consumer = jms.createConsumer(jms.createQueue(queue), "lazarusRunId = '" + run + "'")) {
            while (consumer.receive(1000) != null) {
                purged++;
            }
        }
        return purged;
    }

    /** Runs one SQL update with parameters outside any transaction, as an administrator would; returns the rows changed. */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public int update(String sql, Object... parameters) {
        try (Connection connection = dataSource.getConnection(); var statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i] instanceof Instant at ? java.sql.Timestamp.from(at) : parameters[i]);
            }
            return statement.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** An open dead letter for {@code run} at {@code step}, dispatch 1, recorded without touching the run. */
    public long openDeadLetterOf(UUID run, String step) {
        DeadLetter deadLetter = new DeadLetter(DeadLetterReason.NON_RETRYABLE, DocumentIngestion.PARSE_QUEUE,
                "DLQ." + DocumentIngestion.PARSE_QUEUE, "test", Instant.now())
                .forRun(run, DocumentIngestion.NAME, step, 1L);
        em.persist(deadLetter);
        em.flush();
        return deadLetter.id();
    }

    /** Sends {@code count} messages into {@code queue} with these properties (and a text body), in one transaction. */
    public void send(String queue, int count, String body, java.util.Map<String, Object> properties) {
        var destination = jms.createQueue(queue);
        var producer = jms.createProducer();
        for (int i = 0; i < count; i++) {
            var message = jms.createTextMessage(body);
            try {
                for (var property : properties.entrySet()) {
                    message.setObjectProperty(property.getKey(), property.getValue());
                }
            } catch (jakarta.jms.JMSException e) {
                throw new IllegalStateException(e);
            }
            producer.send(destination, message);
        }
    }

    /**
     * Sends one text message into {@code queue} with its JMS message id disabled (a producer may ask for that, and the
     * broker then stores none), with these properties.
     */
    public void sendWithoutMessageId(String queue, String body, java.util.Map<String, Object> properties) {
        var message = jms.createTextMessage(body);
        try {
            for (var property : properties.entrySet()) {
                message.setObjectProperty(property.getKey(), property.getValue());
            }
        } catch (jakarta.jms.JMSException e) {
            throw new IllegalStateException(e);
        }
        jms.createProducer().setDisableMessageID(true).send(jms.createQueue(queue), message);
    }

    /** The JMS message ids of the messages matching {@code selector} in a queue (null for one that has none), left in place. */
    public List<String> messageIds(String queue, String selector) {
        try (var browser = jms.createBrowser(jms.createQueue(queue), selector)) {
            List<String> ids = new java.util.ArrayList<>();
            for (Object message : java.util.Collections.list(browser.getEnumeration())) {
                ids.add(((jakarta.jms.Message) message).getJMSMessageID());
            }
            return ids;
        } catch (jakarta.jms.JMSException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Holds the row of the timer {@code name} in {@code timer_run} locked, as a slow commit would, from when {@code locked}
     * is counted down until {@code release} is (at most a minute): a sweep then waits at its end, recording that it finished.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public void holdTimerRunRow(String name, java.util.concurrent.CountDownLatch locked, java.util.concurrent.CountDownLatch release)
            throws InterruptedException {
        em.createNativeQuery("select name from timer_run where name = ?1 for update").setParameter(1, name).getResultList();
        locked.countDown();
        release.await(1, java.util.concurrent.TimeUnit.MINUTES);
    }

    /** How many database sessions wait for a lock in a statement that names {@code table}. */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public int sessionsWaitingForALockOn(String table) {
        return Integer.parseInt(column("select count(*) from pg_stat_activity where wait_event_type = 'Lock' and query like '%"
                + table + "%' and pid <> pg_backend_pid()").get(0));
    }

    /** Removes the messages matching {@code selector} from a queue; returns how many. */
    public int purge(String queue, String selector) {
        int purged = 0;
        try (JMSConsumer consumer = jms.createConsumer(jms.createQueue(queue), selector)) {
            while (consumer.receive(1000) != null) {
                purged++;
            }
        }
        return purged;
    }
}
