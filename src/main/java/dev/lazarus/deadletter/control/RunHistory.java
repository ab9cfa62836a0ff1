package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.deadletter.entity.DeadLetterStatus;
import dev.lazarus.pipeline.control.Runs;
import dev.lazarus.pipeline.control.StepAttempts;
import dev.lazarus.pipeline.entity.AttemptOutcome;
import dev.lazarus.pipeline.entity.StepAttempt;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.StepExecution;
import dev.lazarus.pipeline.entity.StepState;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.UUID;

/**
 * A run's whole story, for its page and the API: each dispatch of a step (where it came from, its attempts and how
 * long they took, how it ended), its dead letters, and a timeline of all of it. It lives with the dead letters
 * because it tells of them; the run's own facts come from the pipeline feature.
 *
 * <p>A dispatch's origin is read from what the database keeps: the first is the submission; one after a dispatch
 * whose dead letter was requeued is that requeue (by whom, how its message was found); one after a completed step
 * is the step moving on.
 */
@Stateless
public class RunHistory {

    /** The most dead letters one run's story shows (a run requeued in a loop is parked by the loop guard long before). */
    static final int MAX_DEAD_LETTERS = 200;

    @PersistenceContext
    EntityManager em;

    @Inject
    Runs runs;

    @Inject
    DeadLetters allDeadLetters;

    @Inject
    StepAttempts stepAttempts;

    public Optional<History> of(UUID runId) {
        Optional<Run> found = runs.find(runId);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        Run run = found.get();
        List<StepExecution> executions = runs.steps(runId);
        Map<Long, List<Attempt>> attemptsByDispatch = stepAttempts.of(runId).stream().collect(Collectors.groupingBy(
                StepAttempt::generation, TreeMap::new, Collectors.mapping(Attempt::of, Collectors.toList())));
        // the newest ones, if there are more (messages sent by hand that name the run can be many), and the run's own
        // as summaries: a run's story tells of its dead letters, it does not need their snapshots and traces
        List<DeadLetterSummary> deadLetters = new ArrayList<>(em.createQuery(DeadLetterSummary.SELECT + " where d.runId = :run"
                        + " order by d.createdAt desc, d.id desc", DeadLetterSummary.class).setParameter("run", runId)
                .setParameter("limit", DeadLetterReason.REQUEUE_LIMIT).setMaxResults(MAX_DEAD_LETTERS).getResultList());
        Optional<DeadLetterSummary> latest = allDeadLetters.latestSummaryFor(runId);
        latest.filter(d -> deadLetters.stream().noneMatch(shown -> shown.id() == d.id())).ifPresent(deadLetters::add);
        deadLetters.sort(Comparator.comparing(DeadLetterSummary::createdAt).thenComparing(DeadLetterSummary::id));
        DeadLetterSummary heldBy = run.state() == dev.lazarus.pipeline.entity.RunState.DEAD_LETTERED
                ? latest.filter(DeadLetterSummary::keepsRunStopped).orElse(null) : null;

        List<Dispatch> dispatches = new ArrayList<>();
        TreeSet<Long> generations = new TreeSet<>();
        executions.forEach(e -> generations.add(e.generation()));
        deadLetters.stream().filter(d -> d.generation() != null && d.stepName() != null && !d.reason().aboutMessage())
                .forEach(d -> generations.add(d.generation()));
        if (run.state().isLive()) {
            generations.add(run.generation()); // the dispatch under way, whose attempt may not be written yet
        }
        Long previous = null;
        for (long generation : generations) {
            Optional<StepExecution> execution = executions.stream().filter(e -> e.generation() == generation).findFirst();
            Optional<DeadLetterSummary> stoppedBy = deadLetters.stream()
                    .filter(d -> !d.reason().aboutMessage() && d.generation() != null && d.generation() == generation).findFirst();
            String step = execution.map(StepExecution::stepName).orElseGet(() -> stoppedBy.map(DeadLetterSummary::stepName)
                    .orElse(generation == run.generation() ? run.currentStep() : null));
            dispatches.add(new Dispatch(generation, step, origin(previous, generation, executions, deadLetters),
                    execution.map(e -> e.state().name()).orElse(stoppedBy.isPresent() ? "NOT_STARTED"
                            : generation == run.generation() && run.state().isLive() ? run.state().name() : "WAITING"),
                    execution.map(StepExecution::attempts).orElse(0), execution.map(StepExecution::failures).orElse(0),
                    execution.map(StepExecution::deliveries).orElse(0),
                    execution.map(StepExecution::firstAttemptAt).orElse(null), execution.map(StepExecution::finishedAt).orElse(null),
                    execution.map(RunHistory::took).orElse(null), execution.map(StepExecution::lastError).orElse(null),
                    stoppedBy.map(DeadLetterSummary::id).orElse(null), stoppedBy.map(DeadLetterSummary::messageId).orElse(null),
                    attemptsByDispatch.getOrDefault(generation, List.of())));
            previous = generation;
        }
        return Optional.of(new History(run, heldBy, dispatches, deadLetters, timeline(run, executions, deadLetters)));
    }

    /** Where dispatch {@code generation} came from, judged by the dispatch before it. */
    private static String origin(Long previous, long generation, List<StepExecution> executions, List<DeadLetterSummary> deadLetters) {
        if (previous == null) {
            return generation == 1 ? "submitted" : "dispatched";
        }
        Optional<DeadLetterSummary> requeued = deadLetters.stream()
                .filter(d -> d.status() == DeadLetterStatus.REQUEUED && d.generation() != null && d.generation() == (long) previous)
                .findFirst();
        if (requeued.isPresent()) {
            return "requeued by " + requeued.get().requeuedBy() + " (" + requeued.get().requeueMethod() + ")";
        }
        Optional<StepExecution> before = executions.stream().filter(e -> e.generation() == (long) previous).findFirst();
        if (before.isPresent() && before.get().state() == StepState.COMPLETED) {
            return "after step " + before.get().stepName() + " completed";
        }
        return "dispatched";
    }

    private static Long took(StepExecution execution) {
        if (execution.firstAttemptAt() == null) {
            return null;
        }
        Instant end = execution.finishedAt() != null ? execution.finishedAt() : execution.lastAttemptAt();
        return end == null ? null : Duration.between(execution.firstAttemptAt(), end).toMillis();
    }

    private static List<Event> timeline(Run run, List<StepExecution> executions, List<DeadLetterSummary> deadLetters) {
        List<Event> events = new ArrayList<>();
        events.add(new Event(run.createdAt(), "STARTED", null, null, "run started (pipeline " + run.pipeline() + ")", null));
        for (StepExecution e : executions) {
            if (e.firstAttemptAt() != null) {
                events.add(new Event(e.firstAttemptAt(), "STEP_STARTED", e.stepName(), e.generation(), "step " + e.stepName() + " started", null));
            }
            if (e.failures() > 0 && e.lastAttemptAt() != null) {
                events.add(new Event(e.lastAttemptAt(), "STEP_FAILED", e.stepName(), e.generation(),
                        "step " + e.stepName() + ": " + e.failures() + " of " + e.attempts() + " attempt(s) failed, last: " + e.lastError(), null));
            }
            if (e.finishedAt() != null) {
                events.add(new Event(e.finishedAt(), "STEP_" + e.state().name(), e.stepName(), e.generation(),
                        "step " + e.stepName() + " " + e.state().name().toLowerCase() + " after " + e.attempts() + " attempt(s)", null));
            }
        }
        for (DeadLetterSummary d : deadLetters) {
            events.add(new Event(d.createdAt(), "DEAD_LETTER", d.stepName(), d.generation(),
                    "dead letter " + d.id() + ": " + d.reason().label() + " (found by " + d.detectedBy() + ")", d.id()));
            if (d.closedAt() != null) {
                events.add(new Event(d.closedAt(), "DEAD_LETTER_" + d.status().name(), d.stepName(), d.generation(),
                        "dead letter " + d.id() + " " + d.status().name().toLowerCase().replace('_', ' ') + " by " + d.closedBy()
                                + (d.requeueMethod() != null ? " (" + d.requeueMethod() + ")" : ""), d.id()));
            }
        }
        if (run.finishedAt() != null && run.state() == dev.lazarus.pipeline.entity.RunState.COMPLETED) {
            events.add(new Event(run.finishedAt(), "COMPLETED", null, null, "run completed", null));
        }
        events.sort(Comparator.comparing(Event::at)); // stable: at the same instant, in the order of the story
        return events;
    }

    /**
     * The run's story; {@code heldBy} is the dead letter that holds it while it is {@code DEAD_LETTERED} (open, or
     * resolved or discarded), null otherwise.
     */
    public record History(Run run, DeadLetterSummary heldBy, List<Dispatch> dispatches, List<DeadLetterSummary> deadLetters, List<Event> timeline) {
    }

    /**
     * One dispatch of a step: {@code origin} says how it came about; {@code tookMillis} is from its first attempt to its
     * end (or its last attempt); {@code deadLetterId} and {@code messageId} name the dead letter that stopped it and its
     * message, if one did; {@code attemptCount} is how many attempts it had, {@code attempts} each of them kept (the last
     * {@code lazarus.attempts.kept-per-step}), oldest first.
     */
    public record Dispatch(long generation, String step, String origin, String state, int attemptCount, int failures, int deliveries,
                           Instant firstAttemptAt, Instant finishedAt, Long tookMillis, String lastError, Long deadLetterId,
                           String messageId, List<Attempt> attempts) {
    }

    /**
     * One delivery of a step that reached it: its number in the dispatch, the node that ran it, when, how it ended
     * ({@link AttemptOutcome}) and with what failure.
     */
    public record Attempt(int attempt, String node, Instant startedAt, Instant endedAt, Long tookMillis, String outcome,
                          String exceptionClass, String message) {

        static Attempt of(StepAttempt a) {
            return new Attempt(a.attempt(), a.node(), a.startedAt(), a.endedAt(), a.tookMillis(), a.outcome().name(),
                    a.exceptionClass(), a.message());
        }
    }

    /** One moment of the run's timeline. */
    public record Event(Instant at, String kind, String step, Long generation, String text, Long deadLetterId) {
    }
}
