package dev.lazarus.deadletter.control;

import static dev.lazarus.platform.control.Jsonp.JSON;
import jakarta.json.JsonObjectBuilder;
import dev.lazarus.platform.control.Jsonp;
import dev.lazarus.pipeline.control.PipelineDefinition;
import dev.lazarus.deadletter.entity.DeadLetterAction;
import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.pipeline.control.Payloads;
import dev.lazarus.pipeline.control.Pipelines;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.pipeline.control.StepDispatcher;
import dev.lazarus.pipeline.control.StepMessage;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.platform.control.Problem;
import dev.lazarus.platform.entity.Text;
import jakarta.jms.Message;
import jakarta.annotation.Resource;
import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * Brings dead-lettered runs back to life: the one requeue, used by the admin pages, the REST API, the
 * bulk jobs and the Artemis console's Retry.
 *
 * <p>In one XA transaction it takes the run's message out of {@code DLQ.<queue>}, gives the run a new
 * generation (so the old message, wherever a copy of it may be, can never execute), sends a fresh message
 * for the same step to the original queue with the provenance stamped on it, and closes the dead letter
 * with who did it and how. The fresh message starts with a delivery count of one, so the step gets its full
 * retry policy again. If the DLQ message is gone (purged in the console) the step is dispatched from the
 * database all the same. The dead letter's row is locked before its message is touched, so two operators,
 * or an operator and a job, requeueing at once end with exactly one message back.
 */
@Stateless
@RolesAllowed("operator")
public class RequeueService {

    private static final Logger LOG = Logger.getLogger(RequeueService.class.getName());

    public static final String MOVED = "MOVED_FROM_DLQ";
    public static final String REDISPATCHED = "REDISPATCHED";
    public static final String REPLAYED_FROM_CONSOLE = "REPLAYED_FROM_CONSOLE";

    @PersistenceContext
    EntityManager em;

    @Inject
    Pipelines pipelines;

    @Inject
    DeadLetters deadLetters;

    @Inject
    DeadLetterQueues deadLetterQueues;

    @Inject
    StepDispatcher dispatcher;

    @Inject
    Resumptions resumptions;

    @Inject
    Clock clock;

    @Resource
    SessionContext session;

    @Inject
    Payloads payloads;

    /** Requeues one dead letter, or says exactly why it cannot (404, 409). */
    public DeadLetter requeue(long deadLetterId) {
        DeadLetter deadLetter = em.find(DeadLetter.class, deadLetterId, LockModeType.PESSIMISTIC_WRITE);
        if (deadLetter == null) {
            throw Problem.notFound("no dead letter " + deadLetterId);
        }
        Target target = target(deadLetter).orElseThrow(() -> Problem.conflict(whyNot(deadLetter)));
        Set<UUID> taken = deadLetterQueues.take(target.step().deadLetterQueue(), List.of(deadLetter));
        String operator = session.getCallerPrincipal().getName();
        requeue(target, operator, taken.contains(target.run().id()) ? MOVED : REDISPATCHED, clock.instant());
        LOG.log(Level.INFO, "Run {0} requeued at step {1} by {2} ({3})", new Object[] {target.run().id(), target.step().name(),
                operator, deadLetter.requeueMethod()});
        return deadLetter;
    }

    /** How an operator fixes a stopped run by hand before it goes on. */
    public enum Fix {
        /** Replace the run's payload, then requeue the stopped step. */
        EDIT_PAYLOAD(DeadLetterAction.PAYLOAD_EDITED),
        /** Finish the stopped step with an output the operator supplies; the run goes on at the next step. */
        COMPLETE_STEP(DeadLetterAction.STEP_COMPLETED_BY_HAND),
        /** Skip the stopped step (its pipeline must declare it skippable); the run goes on with its payload unchanged. */
        SKIP_STEP(DeadLetterAction.STEP_SKIPPED);

        private final DeadLetterAction action;

        Fix(DeadLetterAction action) {
            this.action = action;
        }

        /** The requeue method it is recorded as (and counted by). */
        public String method() {
            return action.name();
        }
    }

    /**
     * Fixes the run a dead letter stopped, by hand, and lets it go on, or says exactly why not (404, 409): who (the
     * caller), why ({@code note}, required) and what changed go into the dead letter's audit trail, and the run goes on
     * under a new generation like any requeue (so copies of the stopped dispatch are stale, and the loop guard counts
     * it). Its DLQ message is taken out: the run no longer needs it.
     *
     * @param json the new payload ({@link Fix#EDIT_PAYLOAD}) or the step's output ({@link Fix#COMPLETE_STEP}) as JSON
     *             text, which must pass {@link Payloads} (400, 413 otherwise); null for {@link Fix#SKIP_STEP}
     */
    public DeadLetter fixAndContinue(long deadLetterId, Fix fix, String json, String note) {
        DeadLetter deadLetter = em.find(DeadLetter.class, deadLetterId, LockModeType.PESSIMISTIC_WRITE);
        if (deadLetter == null) {
            throw Problem.notFound("no dead letter " + deadLetterId);
        }
        note = Investigations.requiredNote(note, "say why the run is changed by hand");
        if (fix == Fix.SKIP_STEP && json != null) {
            throw Problem.badRequest("a skip takes no payload or output");
        }
        if (fix != Fix.SKIP_STEP) {
            json = payloads.accept(json, fix == Fix.EDIT_PAYLOAD ? "'payload'" : "'output'").toString();
        }
        Target target = target(deadLetter).orElseThrow(() -> Problem.conflict(whyNot(deadLetter)));
        Run run = target.run();
        PipelineDefinition pipeline = pipelines.find(run.pipeline()).orElseThrow();
        if (fix == Fix.EDIT_PAYLOAD) {
            pipeline.requireExternalRuns("editing a run's payload");
        }
        if (fix == Fix.SKIP_STEP && !target.step().skippable()) {
            throw Problem.conflict("step " + target.step().name() + " of pipeline " + pipeline.name() + " is not skippable (its"
                    + " pipeline does not declare it so: the steps after it need its output); requeue it, edit the payload,"
                    + " or complete it with an output instead");
        }
        String operator = session.getCallerPrincipal().getName();
        Instant now = clock.instant();
        String before = run.payload();
        JsonObjectBuilder detail = JSON.createObjectBuilder().add("step", target.step().name()).add("dispatch", run.generation());
        switch (fix) {
            case EDIT_PAYLOAD -> detail.add("payloadBefore", Jsonp.valueOf(before)).add("payloadAfter", Jsonp.valueOf(json));
            case COMPLETE_STEP -> detail.add("payloadBefore", Jsonp.valueOf(before)).add("output", Jsonp.valueOf(json));
            case SKIP_STEP -> detail.add("skipped", true);
        }
        deadLetter.fixedByHand(fix.action, operator, note, detail.build().toString(), now);
        deadLetterQueues.take(target.step().deadLetterQueue(), List.of(deadLetter)); // not needed any more either way
        if (fix == Fix.EDIT_PAYLOAD) {
            run.editPayload(json, now);
            requeue(target, operator, fix.method(), now);
        } else {
            Optional<StepDefinition> next = pipeline.after(target.step().name());
            long generation = resumptions.continueByHand(deadLetter, run, operator, fix.method(), next.map(StepDefinition::name).orElse(null),
                    fix == Fix.COMPLETE_STEP ? json : before, now);
            next.ifPresent(step -> dispatcher.redispatch(step, new StepMessage(run.id(), step.name(), generation),
                    new StepDispatcher.Requeue(run.requeueCount(), operator, now), run.traceId()));
        }
        LOG.log(Level.INFO, "Run {0}: {1} by {2} at step {3}: {4}", new Object[] {run.id(), fix, operator, target.step().name(), note});
        return deadLetter;
    }

    /**
     * The requeues of one batch of a bulk job ({@link BulkJobBatches}), in its transaction, which holds the dead letters
     * locked: their runs locked with one query, their DLQ messages taken with one selector per queue, each run brought
     * back as {@code operator} (the job's requester). A dead letter that cannot be requeued after all (closed meanwhile,
     * its run disagrees, the loop guard) is skipped with why.
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public BulkJobBatches.Outcome requeueAll(List<DeadLetter> batch, String operator) {
        if (batch.isEmpty()) {
            return new BulkJobBatches.Outcome(0, 0, List.of());
        }
        Instant now = clock.instant();
        // lock the batch's runs with one query rather than one each; target() then finds them in the context
        List<UUID> runs = batch.stream().map(DeadLetter::runId).filter(java.util.Objects::nonNull).toList();
        if (!runs.isEmpty()) {
            em.createQuery("select r from Run r where r.id in :ids", Run.class)
                    .setParameter("ids", runs)
                    .setLockMode(LockModeType.PESSIMISTIC_WRITE)
                    .getResultList();
        }
        List<Target> targets = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        for (DeadLetter deadLetter : batch) {
            target(deadLetter).ifPresentOrElse(targets::add, () -> skipped.add(deadLetter.id() + ": " + whyNot(deadLetter)));
        }
        int moved = 0;
        Map<String, List<Target>> byQueue = targets.stream().collect(Collectors.groupingBy(t -> t.step().deadLetterQueue()));
        for (Map.Entry<String, List<Target>> queue : byQueue.entrySet()) {
            Set<UUID> taken = deadLetterQueues.take(queue.getKey(), queue.getValue().stream().map(Target::deadLetter).toList());
            for (Target target : queue.getValue()) {
                boolean wasInQueue = taken.contains(target.run().id());
                requeue(target, operator, wasInQueue ? MOVED : REDISPATCHED, now);
                moved += wasInQueue ? 1 : 0;
            }
        }
        return new BulkJobBatches.Outcome(targets.size(), targets.size() - moved, skipped);
    }

    /**
     * An operator pressed Retry on a parked message in the Artemis console and it arrived on its step queue
     * carrying the token of the dead letter that holds its run (checked by the ledger, and again here under
     * lock). A requeue like any other, in the consumer's transaction: the run resumes under a new generation
     * with a fresh message, the retried copy is consumed. Refused like any other (the loop guard, a closed or
     * disagreeing dead letter): then the copy is parked again, and the dead letter says why.
     *
     * <p>No role: the operator was authenticated by the broker's console, and only a message taken out of the
     * DLQ can carry the token.
     */
    @PermitAll
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void requeueFromConsole(long deadLetterId, UUID runId, Message retried, StepDefinition step) {
        DeadLetter deadLetter = em.find(DeadLetter.class, deadLetterId, LockModeType.PESSIMISTIC_WRITE);
        if (deadLetter == null) {
            throw new IllegalStateException("dead letter " + deadLetterId + " disappeared; the retried message is redelivered");
        }
        Instant now = clock.instant();
        Optional<Target> target = target(deadLetter);
        if (target.isEmpty() || !runId.equals(deadLetter.runId()) || !target.get().step().equals(step)) {
            String why = whyNot(deadLetter);
            deadLetter.addNote(DeadLetterReport.CONSOLE, Text.truncate("Retry from the Artemis console refused, the message was"
                    + " parked again: " + why, 4000), now);
            deadLetterQueues.park(retried, step.queue(), deadLetter);
            LOG.log(Level.WARNING, "Retry of run {0} from the Artemis console refused: {1}", new Object[] {runId, why});
            return;
        }
        requeue(target.get(), DeadLetterReport.CONSOLE, REPLAYED_FROM_CONSOLE, now);
        LOG.log(Level.INFO, "Run {0} resumes at step {1}: its message was retried from {2} in the Artemis console",
                new Object[] {runId, step.name(), step.deadLetterQueue()});
    }

    private void requeue(Target target, String operator, String method, Instant now) {
        Run run = target.run();
        long generation = resumptions.resume(target.deadLetter(), run, operator, method, now);
        dispatcher.redispatch(target.step(), new StepMessage(run.id(), target.step().name(), generation),
                new StepDispatcher.Requeue(run.requeueCount(), operator, now), run.traceId());
        LOG.log(Level.FINE, "Run {0} requeued at step {1} by {2} ({3})", new Object[] {run.id(), target.step().name(), operator, method});
    }

    /** The run and step a dead letter brings back, if it can be requeued now. */
    private Optional<Target> target(DeadLetter deadLetter) {
        if (!deadLetter.canBeRequeued()) {
            return Optional.empty();
        }
        Run run = em.find(Run.class, deadLetter.runId(), LockModeType.PESSIMISTIC_WRITE);
        if (resumptions.whyNotResumable(deadLetter, run).isPresent()) {
            return Optional.empty();
        }
        return pipelines.step(run.pipeline(), run.currentStep()).map(step -> new Target(deadLetter, run, step));
    }

    private String whyNot(DeadLetter deadLetter) {
        Run run = deadLetter.runId() == null ? null : em.find(Run.class, deadLetter.runId());
        return resumptions.whyNotResumable(deadLetter, run)
                .orElseGet(() -> "pipeline " + run.pipeline() + " has no step " + run.currentStep() + " any more; it cannot be requeued");
    }

    private record Target(DeadLetter deadLetter, Run run, StepDefinition step) {
    }
}
