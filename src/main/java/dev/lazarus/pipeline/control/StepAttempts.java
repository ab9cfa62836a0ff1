package dev.lazarus.pipeline.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.pipeline.entity.AttemptOutcome;
import dev.lazarus.pipeline.entity.StepAttempt;
import dev.lazarus.platform.control.TimerRuns;
import dev.lazarus.platform.entity.Text;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Every delivery of a step that reached it, one {@link StepAttempt} row each, written in the caller's transaction with
 * plain SQL (never an extra transaction, and on the hot path not even an extra statement):
 * <ul>
 * <li>a first delivery that succeeds inline inserts its row, complete, in the statement that records its success
 * ({@link #SUCCEEDED_FIRST}, folded into {@link StepRecords#SUCCEEDED});</li>
 * <li>a first delivery written apart (running long, or failed) inserts it where its attempt is written
 * ({@link StepLedger#recordAttempt}), already ended if it failed;</li>
 * <li>every other delivery inserts it with its claim ({@link StepLedger#claim}); the same statement ends the attempts
 * of the dispatch with a lower number still shown in progress as {@code INTERRUPTED} (its consumer died: a later delivery
 * started) and, once the attempt number passes the bound, deletes the ones older than the bound;</li>
 * <li>its end is written where the step's outcome is: its success ({@link StepRecords#succeeded}), its failure
 * ({@link StepLedger#attemptFailed}), or the dead letter that stops its run ({@link #endedAll}).</li>
 * </ul>
 */
@ApplicationScoped
public class StepAttempts {

    /** This node, as the attempts name it (the WildFly node name, as the timers and the node presence do). */
    public static final String NODE = Text.truncate(TimerRuns.NODE, StepAttempt.NODE_LENGTH);

    /** The most attempts of one dispatch the configuration may ask to keep. */
    static final int MAX_KEPT = 1000;

    /**
     * The attempt row of a first delivery's success, as the last part of {@link StepRecords#SUCCEEDED} (after its CTE
     * {@code execution}, which returns the inserted execution's {@code run_id}): generation, attempt, step, node, start, end.
     */
    static final String SUCCEEDED_FIRST = " insert into step_attempt (run_id, generation, attempt, step_name, node, started_at,"
            + " ended_at, outcome) select run_id, ?, ?, ?, ?, ?, ?, '" + AttemptOutcome.SUCCEEDED.name() + "' from execution";

    private static final String INSERT = "insert into step_attempt (run_id, generation, attempt, step_name, node, started_at,"
            + " ended_at, outcome, exception_class, message) values (?1, ?2, ?3, ?4, ?5, ?6, case when ?8 = '"
            + AttemptOutcome.IN_PROGRESS.name() + "' then null else cast(?7 as timestamp with time zone) end, ?8, nullif(?9, ''), nullif(?10, '')) on conflict do nothing";

    /** Ends an earlier attempt of the dispatch still shown in progress: a later delivery started, so its consumer is gone. */
    private static final String INTERRUPT_EARLIER = "update step_attempt set outcome = '" + AttemptOutcome.INTERRUPTED.name()
            + "', ended_at = ?6, message = 'never finished: a later delivery started (its server stopped or its transaction was"
            + " rolled back)' where run_id = ?1 and generation = ?2 and attempt < ?3 and outcome = '"
            + AttemptOutcome.IN_PROGRESS.name() + "'";

    /** Ends one attempt, by its number ({@link #ended}). */
    static final String ENDED = "update step_attempt set outcome = ?3, ended_at = ?4, exception_class = nullif(?5, ''),"
            + " message = nullif(?6, '') where run_id = ?1 and generation = ?2 and attempt = ?7 and outcome in ('"
            + AttemptOutcome.IN_PROGRESS.name() + "', '" + AttemptOutcome.INTERRUPTED.name() + "')";

    @PersistenceContext
    EntityManager em;

    @Inject
    @ConfigProperty(name = "lazarus.attempts.kept-per-step", defaultValue = "20")
    int keptPerStep;

    /** How an attempt ended: its outcome and, for a failure, the exception's class and message (bounded, printable). */
    public record Ending(AttemptOutcome outcome, String exceptionClass, String message) {

        public Ending {
            exceptionClass = bounded(exceptionClass, StepAttempt.CLASS_LENGTH);
            message = bounded(message, StepAttempt.MESSAGE_LENGTH);
        }

        /**
         * Printable (control characters escaped) and within its column: escaping lengthens the text, so it is cut again
         * (a message too long for its column would fail the write that records the attempt's failure).
         */
        private static String bounded(String text, int max) {
            return text == null ? null : Text.truncate(Text.printable(text, max), max);
        }

        /** A failure of the handler: {@code NON_RETRYABLE} if it declared it permanent, else {@code FAILED}. */
        public static Ending failed(Throwable failure, boolean permanent) {
            return new Ending(permanent ? AttemptOutcome.NON_RETRYABLE : AttemptOutcome.FAILED, failure.getClass().getName(),
                    failure.getMessage());
        }

        /** The step's call ended in an error of the container (a rolled-back or timed-out transaction, say). */
        public static Ending interrupted(Throwable failure) {
            return new Ending(AttemptOutcome.INTERRUPTED, failure == null ? null : failure.getClass().getName(),
                    failure == null ? "never finished" : failure.getMessage());
        }
    }

    /** The attempt of a dispatch to end with the dead letter that stops its run (see {@link #endedAll}). */
    public record Stopped(UUID runId, long generation, Ending ending) {
    }

    /** How many attempts of one dispatch are kept ({@code lazarus.attempts.kept-per-step}, 1 to 1 000). */
    public int kept() {
        return Math.max(1, Math.min(MAX_KEPT, keptPerStep));
    }

    /**
     * Attempt {@code attempt} of the dispatch started at {@code at} on this node; {@code ending} if it is written once it
     * has ended already (a first delivery's failure), else it shows in progress. An earlier attempt still in progress is
     * ended as interrupted, and attempts past the bound are deleted, in the same statement.
     */
    public void started(UUID runId, long generation, String step, int attempt, Instant at, Ending ending, Instant now) {
        StringBuilder sql = new StringBuilder();
        sql.append("with interrupted as (").append(INTERRUPT_EARLIER).append(" returning 1)");
        int kept = kept();
        if (attempt > kept) {
            // only once the number passes the bound: everything older than the bound, by the primary key's range
            sql.append(", pruned as (delete from step_attempt where run_id = ?1 and generation = ?2 and attempt <= ")
                    .append(attempt - kept).append(" returning 1)");
        }
        sql.append(' ').append(INSERT);
        em.createNativeQuery(sql.toString())
                .setParameter(1, runId)
                .setParameter(2, generation)
                .setParameter(3, attempt)
                .setParameter(4, step)
                .setParameter(5, NODE)
                .setParameter(6, at(at))
                .setParameter(7, at(now))
                .setParameter(8, (ending == null ? AttemptOutcome.IN_PROGRESS : ending.outcome()).name())
                .setParameter(9, ending == null ? "" : orEmpty(ending.exceptionClass()))
                .setParameter(10, ending == null ? "" : orEmpty(ending.message()))
                .executeUpdate();
    }

    /**
     * Attempt {@code attempt} of the dispatch ended now, if it is still shown in progress, or as interrupted: a copy of
     * the dispatch claimed by another node while this one still ran (a redelivery after a partition) took it for dead,
     * and its own end is the truth. Only that attempt: the copy's row is not this attempt's to end.
     */
    public void ended(UUID runId, long generation, int attempt, Ending ending, Instant now) {
        em.createNativeQuery(ENDED)
                .setParameter(1, runId)
                .setParameter(2, generation)
                .setParameter(7, attempt)
                .setParameter(3, ending.outcome().name())
                .setParameter(4, at(now))
                .setParameter(5, orEmpty(ending.exceptionClass()))
                .setParameter(6, orEmpty(ending.message()))
                .executeUpdate();
    }

    /**
     * The attempts in progress of the dispatches the dead letters of one transaction stopped (one, or a sweep's batch),
     * each ended as it says, in one statement.
     */
    public void endedAll(Collection<Stopped> stopped, Instant now) {
        if (stopped.isEmpty()) {
            return;
        }
        JsonArrayBuilder rows = JSON.createArrayBuilder();
        for (Stopped s : stopped) {
            var row = JSON.createObjectBuilder().add("run_id", s.runId().toString()).add("generation", s.generation())
                    .add("outcome", s.ending().outcome().name());
            if (s.ending().exceptionClass() != null) {
                row.add("exception_class", s.ending().exceptionClass());
            }
            if (s.ending().message() != null) {
                row.add("message", s.ending().message());
            }
            rows.add(row);
        }
        em.createNativeQuery("update step_attempt a set outcome = j.outcome, ended_at = ?2, exception_class = j.exception_class,"
                        + " message = j.message from json_to_recordset(cast(?1 as json)) as j(run_id uuid, generation bigint,"
                        + " outcome varchar, exception_class varchar, message varchar)"
                        + " where a.run_id = j.run_id and a.generation = j.generation and a.outcome = '"
                        + AttemptOutcome.IN_PROGRESS.name() + "'")
                .setParameter(1, rows.build().toString())
                .setParameter(2, at(now))
                .executeUpdate();
    }

    /** The most attempts of one run a page or history request reads: the newest, when a run has more. */
    static final int MAX_SHOWN = 2000;

    /**
     * A run's attempts, every dispatch's, in order; of a run with more than {@value #MAX_SHOWN}, the newest (read newest
     * first and bounded, so that what is left out is the oldest, never what happened last).
     */
    public List<StepAttempt> of(UUID runId) {
        List<StepAttempt> newestFirst = new java.util.ArrayList<>(em.createQuery("select a from StepAttempt a where a.runId = :run"
                        + " order by a.generation desc, a.attempt desc", StepAttempt.class)
                .setParameter("run", runId)
                .setMaxResults(MAX_SHOWN)
                .getResultList());
        java.util.Collections.reverse(newestFirst);
        return newestFirst;
    }

    /** Nulls travel as empty strings (turned back by {@code nullif}): a null parameter of a native query has no SQL type. */
    private static String orEmpty(String text) {
        return text == null ? "" : text;
    }

    private static OffsetDateTime at(Instant instant) {
        return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
    }
}
