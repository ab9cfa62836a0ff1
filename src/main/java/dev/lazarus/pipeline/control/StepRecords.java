package dev.lazarus.pipeline.control;

import dev.lazarus.pipeline.entity.AttemptOutcome;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.RunState;
import dev.lazarus.pipeline.entity.StepExecution;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.OptimisticLockException;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.PersistenceException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A step's claim and record inside its own transaction ({@link StepTransaction}), the hot path of {@link StepLedger}:
 * what every step does, so it is done with the fewest round trips and without an entity manager. The first delivery of
 * a dispatch reads its run once (the claim, one statement), and its success is one statement: the run moves on (fenced
 * by the version the claim read) and the step's execution is inserted, complete. Both go through the persistence
 * unit's datasource, which in the step's transaction hands out the one connection the handler's own JPA work uses. What changes is decided by the entities' own methods ({@link Run#advanceTo}, {@link Run#complete},
 * {@link StepExecution#completed}); this class only writes the columns they map (kept equal to the mapping by
 * {@code StepRecordsTest}), and reports the run's change as its entity listener would ({@link RunChanges}).
 *
 * <p>Why: a step's record through Hibernate (a flush of an insert and a versioned update, each with its dirty check and
 * events) cost more of a step's CPU than its handler (benchmarks.md, issue #22).
 */
@ApplicationScoped
public class StepRecords {

    private static final Logger LOG = Logger.getLogger(StepRecords.class.getName());

    /**
     * The run's columns a step's success changes, the execution it inserts and its attempt ({@link StepAttempts}), in one
     * statement: the execution and the attempt are written only if the run moved (its version was the claim's).
     */
    static final String SUCCEEDED = "with moved as (update run set state = ?, current_step = ?, generation = ?, payload = ?,"
            + " heartbeat_at = ?, finished_at = ?, updated_at = ?, dispatched_by = ?, version = version + 1"
            + " where id = ? and version = ? returning id),"
            + " execution as (insert into step_execution (id, run_id, step_name, generation, queue, state, attempts, failures, deliveries,"
            + " first_attempt_at, last_attempt_at, heartbeat_at, finished_at, last_error)"
            + " select nextval('step_execution_seq'), id, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? from moved returning run_id)"
            + StepAttempts.SUCCEEDED_FIRST;

    @PersistenceContext
    EntityManager em;

    /**
     * The persistence unit's datasource: in the step's transaction it hands out the connection Hibernate uses (one per
     * transaction), so the statement below joins the handler's work and commits with it.
     */
    @Resource(lookup = "java:jboss/datasources/LazarusDS")
    DataSource dataSource;

    @Inject
    Pipelines pipelines;

    @Inject
    StepExecutions executions;

    @Inject
    RunChanges runChanges;

    @Inject
    StepAttempts attempts;

    @Inject
    Clock clock;

    /**
     * The step's transaction's connection, for its claim and its record: taken once per step (each taking costs more
     * than the statement it serves); the handler's own JPA work gets the same one from the container. Close it when the
     * step is recorded.
     */
    public Connection connection() {
        try {
            return dataSource.getConnection();
        } catch (SQLException e) {
            throw new PersistenceException("could not take a database connection: " + e.getMessage(), e);
        }
    }

    /** Every column of a run, as {@link Run.Row} holds them. */
    static final String CLAIM = "select id, pipeline, state, current_step, generation, payload, requeue_count, created_at,"
            + " updated_at, heartbeat_at, finished_at, submission_key, submission_digest, trace_id, dispatched_by, version"
            + " from run where id = ?";

    /**
     * The claim of a fresh dispatch's first delivery, in the step's transaction: the run, read in one statement, if it
     * is waiting for exactly this dispatch and no attempt of it was recorded yet (it is {@code PENDING}, see
     * {@link RunState}: no query for an execution). Nothing is written here; the attempt is written with the step's
     * success ({@link #succeededFirst}), or earlier in a transaction of its own ({@link StepLedger#recordAttempt}).
     * Anything else is for {@link StepLedger#claim} to decide.
     */
    public Optional<Run> claimFirstDelivery(Connection connection, StepMessage message, StepDefinition step) {
        Optional<Run> run = read(connection, message.runId());
        return run.filter(r -> r.state() == RunState.PENDING && r.pipeline().equals(step.pipeline())
                && r.accepts(message.step(), message.generation()));
    }

    /** The payload a step claimed apart receives; read in the step's transaction, after the attempt was claimed. */
    public String payload(StepMessage message) {
        return em.find(Run.class, message.runId()).payload();
    }

    /**
     * The step of a first delivery claimed inline succeeded ({@link #claimFirstDelivery}): the run moves on (or
     * completes) and the execution is inserted complete, in one statement fenced by the version the claim read. If the
     * attempt was written meanwhile in a transaction of its own (the step ran long), it is recorded as any other
     * ({@link #succeeded}).
     *
     * @return the next step's dispatch, to be sent after the commit; empty if the run completed
     * @throws StepLedger.RunMovedOn if the run is no longer at this dispatch
     */
    public Optional<StepDispatcher.Dispatch> succeededFirst(Connection connection, Run run, StepMessage message, StepDefinition step,
                                                            String output, InlineAttempt inline, String incarnation) {
        if (inline.recorded()) {
            return succeeded(message, step, 1, output, incarnation); // a fresh dispatch's first delivery: its attempt is the first
        }
        Instant now = clock.instant();
        StepExecution execution = new StepExecution(run, step.name(), step.queue());
        execution.attemptStarted(inline.deliveryCount(), inline.startedAt());
        execution.completed(now);
        long version = run.version();
        Optional<StepDispatcher.Dispatch> next = moveOn(run, step, output, now, incarnation);
        write(connection, run, version, execution, message);
        runChanges.updated(run); // what the entity listener says of a change Hibernate writes
        return next;
    }

    /**
     * The step succeeded on a delivery whose attempt was written before (in a transaction of its own): record it and
     * make the next dispatch (or complete the run), in the step's transaction, through the entity manager. If the run
     * was stopped, swept or requeued since the attempt was claimed, the outcome is refused here (a fenced attempt never
     * moves its run on); if that happens while this transaction runs, the run's version check fails the update. Either
     * way it is a {@link StepLedger.RunMovedOn}, and the broker's redelivery is then settled with the dead letter of the
     * dispatch.
     *
     * @return the next step's dispatch, to be sent after the commit; empty if the run completed
     * @throws StepLedger.RunMovedOn if the run is no longer at this dispatch
     */
    public Optional<StepDispatcher.Dispatch> succeeded(StepMessage message, StepDefinition step, int attempt, String output,
                                                       String incarnation) {
        Instant now = clock.instant();
        Run run = em.find(Run.class, message.runId()); // read in this transaction: after its attempt was written
        if (run == null || !run.accepts(message.step(), message.generation())) {
            throw new StepLedger.RunMovedOn(message, run == null ? "disappeared" : "moved on to " + run.state() + " at step "
                    + run.currentStep() + ", dispatch " + run.generation());
        }
        executions.of(run.id(), step.name(), run.generation()).ifPresent(execution -> execution.completed(now));
        long generation = run.generation();
        Optional<StepDispatcher.Dispatch> next = moveOn(run, step, output, now, incarnation);
        flush(message);
        attempts.ended(run.id(), generation, attempt, new StepAttempts.Ending(AttemptOutcome.SUCCEEDED, null, null), now); // after the flush: a moved run is a RunMovedOn
        return next;
    }

    /**
     * The run moves on to the step after {@code step} with {@code output} as its payload, sent by {@code incarnation}
     * after the commit (or completes); the dispatch to send.
     */
    private Optional<StepDispatcher.Dispatch> moveOn(Run run, StepDefinition step, String output, Instant now, String incarnation) {
        Optional<StepDefinition> next = pipelines.find(run.pipeline()).flatMap(p -> p.after(step.name()));
        if (next.isEmpty()) {
            run.complete(output, now);
            LOG.log(Level.FINE, "Run {0} of {1} completed", new Object[] {run.id(), run.pipeline()});
            return Optional.empty();
        }
        run.advanceTo(next.get().name(), output, now);
        run.dispatchedBy(incarnation);
        return Optional.of(StepDispatcher.Dispatch.of(next.get(), new StepMessage(run.id(), next.get().name(), run.generation()),
                run.traceId()));
    }

    /** The run's row, read with SQL in the caller's transaction; empty if there is none. */
    private Optional<Run> read(Connection connection, UUID id) {
        try (PreparedStatement statement = connection.prepareStatement(CLAIM)) {
            statement.setObject(1, id);
            try (ResultSet row = statement.executeQuery()) {
                if (!row.next()) {
                    return Optional.empty();
                }
                int i = 0;
                return Optional.of(Run.restored(new Run.Row(row.getObject(++i, UUID.class), row.getString(++i),
                        RunState.valueOf(row.getString(++i)), row.getString(++i), row.getLong(++i), row.getString(++i),
                        row.getInt(++i), instant(row, ++i), instant(row, ++i), instant(row, ++i), instant(row, ++i),
                        row.getString(++i), row.getString(++i), row.getString(++i), row.getString(++i), row.getLong(++i))));
            }
        } catch (SQLException e) {
            throw new PersistenceException("could not read run " + id + ": " + e.getMessage(), e);
        }
    }

    private static Instant instant(ResultSet row, int column) throws SQLException {
        OffsetDateTime value = row.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    private void flush(StepMessage message) {
        try {
            em.flush(); // surface a concurrent change here rather than at commit
        } catch (OptimisticLockException changed) {
            // the run's row changed after this transaction read it (the only versioned row written here): stopped,
            // swept or requeued while the step ran, and the database noticed
            throw new StepLedger.RunMovedOn(message, "changed");
        }
    }

    /** The run's change (fenced by the version it was read at), its new execution and its attempt, in one statement. */
    private void write(Connection connection, Run run, long version, StepExecution execution, StepMessage message) {
        int written;
        try (PreparedStatement statement = connection.prepareStatement(SUCCEEDED)) {
            int i = 0;
            statement.setString(++i, run.state().name());
            statement.setString(++i, run.currentStep());
            statement.setLong(++i, run.generation());
            statement.setString(++i, run.payload());
            timestamp(statement, ++i, run.heartbeatAt());
            timestamp(statement, ++i, run.finishedAt());
            timestamp(statement, ++i, run.updatedAt());
            statement.setString(++i, run.dispatchedBy());
            statement.setObject(++i, run.id());
            statement.setLong(++i, version);
            statement.setString(++i, execution.stepName());
            statement.setLong(++i, execution.generation());
            statement.setString(++i, execution.queue());
            statement.setString(++i, execution.state().name());
            statement.setInt(++i, execution.attempts());
            statement.setInt(++i, execution.failures());
            statement.setInt(++i, execution.deliveries());
            timestamp(statement, ++i, execution.firstAttemptAt());
            timestamp(statement, ++i, execution.lastAttemptAt());
            timestamp(statement, ++i, execution.heartbeatAt());
            timestamp(statement, ++i, execution.finishedAt());
            statement.setString(++i, execution.lastError());
            // its attempt: the execution's first, run on this node from the claim to now
            statement.setLong(++i, execution.generation());
            statement.setInt(++i, execution.attempts());
            statement.setString(++i, execution.stepName());
            statement.setString(++i, StepAttempts.NODE);
            timestamp(statement, ++i, execution.firstAttemptAt());
            timestamp(statement, ++i, execution.finishedAt());
            written = statement.executeUpdate();
        } catch (SQLException e) {
            throw new PersistenceException("could not record the success of " + message.idempotencyKey()
                    + ": " + e.getMessage(), e);
        }
        if (written != 1) {
            // the run's row changed after this transaction read it: stopped, swept or requeued while the step ran
            throw new StepLedger.RunMovedOn(message, "changed");
        }
    }

    private static void timestamp(PreparedStatement statement, int index, Instant instant) throws SQLException {
        if (instant == null) {
            statement.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
        } else {
            statement.setObject(index, OffsetDateTime.ofInstant(instant, ZoneOffset.UTC));
        }
    }
}
