package dev.lazarus.deadletter.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.deadletter.entity.DeadLetterEvent;
import dev.lazarus.pipeline.control.RunChanges;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.StepExecution;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.json.stream.JsonGenerator;
import jakarta.persistence.EntityManager;
import jakarta.persistence.OptimisticLockException;
import jakarta.persistence.PersistenceContext;
import java.io.StringWriter;
import java.time.Instant;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;

/**
 * Writes what {@link DeadLetterService}'s rule decided for a whole batch (a sweep's) in one statement per table,
 * instead of an insert or update per entity through Hibernate: the dead letters and their audit entries, the runs
 * they stopped (fenced by each run's version) and the executions that gave up. The decisions are the entities'
 * own, made by the same rule and the same entity methods as every other detection path; this class only knows
 * which columns each entity has, as its JPA mapping does (the two are kept equal by
 * {@code DeadLetterRowsTest}, which compares the columns, and by
 * {@code ResilienceIT.aSweepsBatchWritesTheSameRowsAsADeadLetterWrittenAlone}, which compares the rows and event lines
 * a stale run leaves either way).
 *
 * <p>Its ids are sequence values taken one per row, so they are higher than the ids left in this node's block:
 * nothing may take id order for the order dead letters were recorded (it never held across nodes either).
 *
 * <p>Why: dead-lettering an outage's worth of stale runs (10 000 at a time) spent most of its time in Hibernate's
 * per-entity inserts and updates (see benchmarks.md). PostgreSQL only: the rows travel as one JSON array per
 * table ({@code json_populate_recordset}), bound as one parameter of a native query, so they go through the
 * entity manager's own connection and transaction.
 */
@Dependent
public class DeadLetterRows {

    @PersistenceContext
    EntityManager em;

    @Inject
    DeadLetterChanges deadLetterChanges;

    @Inject
    RunChanges runChanges;

    /**
     * Writes the batch in the caller's transaction. The runs and executions are taken out of the persistence context
     * first (their changes are written here, not flushed by Hibernate), so the caller must not use them afterwards.
     *
     * @throws OptimisticLockException if a run changed since the rule read it: the caller's transaction must roll back
     */
    public void write(List<DeadLetter> deadLetters, Collection<Run> stoppedRuns, Collection<StepExecution> gaveUp) {
        stoppedRuns.forEach(em::detach);
        gaveUp.forEach(em::detach);
        if (!deadLetters.isEmpty()) {
            Iterator<Long> ids = nextIds("dead_letter_seq", deadLetters.size()).iterator();
            int eventCount = deadLetters.stream().mapToInt(d -> d.events().size()).sum();
            Iterator<Long> eventIds = nextIds("dead_letter_event_seq", eventCount).iterator();
            deadLetters.forEach(deadLetter -> deadLetter.takeIds(ids.next(), eventIds::next));
            execute("insert into dead_letter (" + DEAD_LETTER_COLUMNS + ") select " + DEAD_LETTER_COLUMNS
                    + " from json_populate_recordset(null::dead_letter, cast(?1 as json))", deadLetters, DeadLetterRows::deadLetterRow);
            List<Event> events = deadLetters.stream().flatMap(d -> d.events().stream().map(e -> new Event(d, e))).toList();
            execute("insert into dead_letter_event (" + EVENT_COLUMNS + ") select " + EVENT_COLUMNS
                    + " from json_populate_recordset(null::dead_letter_event, cast(?1 as json))", events, DeadLetterRows::eventRow);
        }
        if (!stoppedRuns.isEmpty()) {
            int updated = execute("update run r set state = j.state, current_step = j.current_step,"
                    + " generation = j.generation, requeue_count = j.requeue_count, updated_at = j.updated_at,"
                    + " heartbeat_at = j.heartbeat_at, finished_at = j.finished_at, version = r.version + 1"
                    + " from json_populate_recordset(null::run, cast(?1 as json)) j where r.id = j.id and r.version = j.version",
                    stoppedRuns, DeadLetterRows::runRow);
            if (updated != stoppedRuns.size()) {
                // another transaction changed one of them after the rule read it (its lock was not held): nothing of
                // this batch may stand
                throw new OptimisticLockException((stoppedRuns.size() - updated) + " of " + stoppedRuns.size()
                        + " runs changed while their dead letters were written");
            }
        }
        // what giving up changes (StepExecution.gaveUp), no more: the execution has no version to fence other columns with
        execute("update step_execution s set state = j.state, failures = j.failures, last_error = j.last_error"
                + " from json_populate_recordset(null::step_execution, cast(?1 as json)) j where s.id = j.id", gaveUp,
                DeadLetterRows::executionRow);
        // what the entity listeners report for an entity Hibernate writes: the event lines and the counters, after commit
        deadLetterChanges.recordedAll(deadLetters);
        stoppedRuns.forEach(runChanges::updated);
    }

    /** The columns of {@code dead_letter}, every one {@link DeadLetter} maps. */
    static final String DEAD_LETTER_COLUMNS = "id, run_id, open_run_id, pipeline, step_name, queue, dead_letter_queue, reason,"
            + " status, message_id, generation, attempts, exception_class, error_message, stack_trace, run_snapshot,"
            + " message_body, detected_by, created_at, updated_at, requeued_by, requeued_at, requeue_method, version,"
            + " closed_at, closed_by, dlq_message_missing, dlq_checked_at, parked_token, trace_id, fingerprint,"
            + " top_frame, root_cause, fingerprint_rule, resolved_root_cause";

    /** The columns of {@code dead_letter_event}, every one {@link DeadLetterEvent} maps. */
    static final String EVENT_COLUMNS = "id, dead_letter_id, at, actor, action, from_status, to_status, note, detail";

    private static void deadLetterRow(JsonGenerator row, DeadLetter d) {
        put(row, "id", d.id());
        put(row, "run_id", d.runId());
        put(row, "open_run_id", d.openRunId());
        put(row, "pipeline", d.pipeline());
        put(row, "step_name", d.stepName());
        put(row, "queue", d.queue());
        put(row, "dead_letter_queue", d.deadLetterQueue());
        put(row, "reason", d.reason());
        put(row, "status", d.status());
        put(row, "message_id", d.messageId());
        put(row, "generation", d.generation());
        put(row, "attempts", d.attempts());
        put(row, "exception_class", d.exceptionClass());
        put(row, "error_message", d.errorMessage());
        put(row, "stack_trace", d.stackTrace());
        put(row, "run_snapshot", d.runSnapshot());
        put(row, "message_body", d.messageBody());
        put(row, "detected_by", d.detectedBy());
        put(row, "created_at", d.createdAt());
        put(row, "updated_at", d.updatedAt());
        put(row, "requeued_by", d.requeuedBy());
        put(row, "requeued_at", d.requeuedAt());
        put(row, "requeue_method", d.requeueMethod());
        put(row, "version", d.version());
        put(row, "closed_at", d.closedAt());
        put(row, "closed_by", d.closedBy());
        row.write("dlq_message_missing", d.dlqMessageMissing());
        put(row, "dlq_checked_at", d.dlqCheckedAt());
        put(row, "parked_token", d.parkedToken());
        put(row, "trace_id", d.traceId());
        put(row, "fingerprint", d.fingerprint());
        put(row, "top_frame", d.topFrame());
        put(row, "root_cause", d.rootCause());
        put(row, "fingerprint_rule", d.fingerprintRule());
        put(row, "resolved_root_cause", d.resolvedRootCause());
    }

    private record Event(DeadLetter owner, DeadLetterEvent event) {
    }

    private static void eventRow(JsonGenerator row, Event e) {
        put(row, "id", e.event().id());
        put(row, "dead_letter_id", e.owner().id());
        put(row, "at", e.event().at());
        put(row, "actor", e.event().actor());
        put(row, "action", e.event().action());
        put(row, "from_status", e.event().fromStatus());
        put(row, "to_status", e.event().toStatus());
        put(row, "note", e.event().note());
        put(row, "detail", e.event().detail());
    }

    /** The columns a run's stop changes, with the version it was read at (the fence). */
    private static void runRow(JsonGenerator row, Run run) {
        put(row, "id", run.id());
        put(row, "version", run.version());
        put(row, "state", run.state());
        put(row, "current_step", run.currentStep());
        put(row, "generation", run.generation());
        put(row, "requeue_count", run.requeueCount());
        put(row, "updated_at", run.updatedAt());
        put(row, "heartbeat_at", run.heartbeatAt());
        put(row, "finished_at", run.finishedAt());
    }

    private static void executionRow(JsonGenerator row, StepExecution s) {
        put(row, "id", s.id());
        put(row, "state", s.state());
        put(row, "failures", s.failures());
        put(row, "last_error", s.lastError());
    }

    private List<Long> nextIds(String sequence, int count) {
        if (count == 0) {
            return List.of();
        }
        // one value of the sequence per row, not a block: the sequence steps by JPA's allocation size (50), and a
        // value it hands out here is one JPA's id generator never receives, so neither ever uses the other's ids
        return em.createNativeQuery("select nextval('" + sequence + "') from generate_series(1, ?1)")
                .setParameter(1, count)
                .getResultStream()
                .map(value -> ((Number) value).longValue())
                .toList();
    }

    /**
     * Characters of JSON one statement carries at most: a batch's runs can each hold a payload of 200 000 characters
     * and its dead letters a snapshot as large, and a sweep runs several batches at once, so the rows go in slices
     * rather than as one text of the whole batch.
     */
    static final int SLICE = 4_000_000;

    /** Runs the statement for the rows, a slice of them at a time; returns the rows it changed. */
    private <T> int execute(String sql, Collection<T> entities, RowWriter<T> writer) {
        int changed = 0;
        StringWriter text = new StringWriter();
        JsonGenerator json = null;
        for (T entity : entities) {
            if (json == null) {
                json = JSON.createGenerator(text);
                json.writeStartArray();
            }
            json.writeStartObject();
            writer.write(json, entity);
            json.writeEnd();
            json.flush();
            if (text.getBuffer().length() >= SLICE) {
                json.writeEnd();
                json.close();
                changed += em.createNativeQuery(sql).setParameter(1, text.toString()).executeUpdate();
                text = new StringWriter();
                json = null;
            }
        }
        if (json != null) {
            json.writeEnd();
            json.close();
            changed += em.createNativeQuery(sql).setParameter(1, text.toString()).executeUpdate();
        }
        return changed;
    }

    @FunctionalInterface
    private interface RowWriter<T> {
        void write(JsonGenerator row, T entity);
    }

    private static void put(JsonGenerator row, String column, Object value) {
        if (value == null) {
            row.writeNull(column);
        } else if (value instanceof Number number) {
            row.write(column, number.longValue());
        } else if (value instanceof Instant instant) {
            row.write(column, instant.toString()); // ISO-8601 in UTC, which timestamptz reads exactly
        } else {
            row.write(column, value.toString()); // text, UUIDs and enums (mapped by name)
        }
    }
}
