package dev.lazarus.pipeline.control;

import dev.lazarus.events.control.Events;
import dev.lazarus.events.entity.Event;
import dev.lazarus.events.entity.EventType;
import dev.lazarus.pipeline.entity.StepControl;
import dev.lazarus.pipeline.entity.StepControlEvent;
import dev.lazarus.platform.control.AfterCommit;
import dev.lazarus.platform.control.EventLog;
import dev.lazarus.platform.control.Metrics;
import dev.lazarus.platform.control.Problem;
import dev.lazarus.platform.entity.Text;
import dev.lazarus.platform.control.TextInput;
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
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * The one place a step's state changes (see {@link StepControl} for its rules): by an operator (pause, resume), or by
 * Lazarus (a hold when a step's failures cross their threshold, a probe's outcome). Each change is written with its
 * reason in the step's history and, once committed, in the event log and the counters; the brokers follow within
 * seconds ({@link BrokerPauses}: every node applies what the database says).
 */
@Stateless
@PermitAll
public class StepControls {

    private static final Logger LOG = Logger.getLogger(StepControls.class.getName());

    @PersistenceContext
    EntityManager em;

    @Inject
    Events events;

    @Inject
    Pipelines pipelines;

    @Inject
    BrokerPauses brokerPauses;

    @Inject
    AfterCommit afterCommit;

    @Inject
    Metrics metrics;

    @Inject
    Clock clock;

    @Resource
    SessionContext session;

    /** Every step of the deployment has its row (a new step starts running); idempotent, for every node's start-up. */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public void ensureEveryStep() {
        for (PipelineDefinition pipeline : pipelines.all()) {
            for (StepDefinition step : pipeline.steps()) {
                em.createNativeQuery("insert into step_control (pipeline, step_name, state, since, changed_by, probes_failed, version)"
                                + " values (?, ?, 'RUNNING', ?, ?, 0, 0) on conflict do nothing")
                        .setParameter(1, step.pipeline()).setParameter(2, step.name())
                        .setParameter(3, java.sql.Timestamp.from(clock.instant())).setParameter(4, StepControl.LAZARUS)
                        .executeUpdate();
            }
        }
    }

    /**
     * A node has brought every broker's queue of the step to its state as of {@code since} (the state's last change):
     * no node needs to again until it changes. A change made meanwhile has another {@code since}, and keeps its flag.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public void queuesUpdated(StepDefinition step, java.time.Instant since) {
        em.createQuery("update StepControl c set c.queuesUpdated = true, c.version = c.version + 1 where c.pipeline = :p"
                        + " and c.stepName = :s and c.since = :since and c.queuesUpdated = false")
                .setParameter("p", step.pipeline()).setParameter("s", step.name()).setParameter("since", since)
                .executeUpdate();
    }

    /** The states of the deployment's steps, as the database has them now, by step. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public Map<StepDefinition, StepControl> all() {
        Map<String, StepControl> stored = em.createQuery("select c from StepControl c", StepControl.class).getResultStream()
                .collect(Collectors.toMap(c -> c.pipeline() + "/" + c.stepName(), Function.identity()));
        Map<StepDefinition, StepControl> states = new java.util.LinkedHashMap<>();
        for (PipelineDefinition pipeline : pipelines.all()) {
            for (StepDefinition step : pipeline.steps()) {
                StepControl state = stored.get(step.pipeline() + "/" + step.name());
                states.put(step, state != null ? state : new StepControl(step.pipeline(), step.name(), clock.instant()));
            }
        }
        return states;
    }

    /** An operator pauses a step: a note says why. 404 for a step the deployment does not have, 409 if already paused. */
    @RolesAllowed("operator")
    public StepControl pause(String pipeline, String step, String note) {
        String why = TextInput.requiredText("note", note, StepControl.NOTE_LENGTH, "say why the step is paused");
        return change(pipeline, step, control -> control.pause(caller(), why, clock.instant()));
    }

    /** An operator lets a paused or held step run again. 409 if it runs. */
    @RolesAllowed("operator")
    public StepControl resume(String pipeline, String step, String note) {
        String why = TextInput.text("note", note, StepControl.NOTE_LENGTH);
        return change(pipeline, step, control -> control.resume(caller(), why, clock.instant()));
    }

    /** The step's state as the database has it now (running if it was never changed). */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public StepControl current(StepDefinition step) {
        StepControl control = em.find(StepControl.class, new StepControl.Key(step.pipeline(), step.name()));
        return control != null ? control : new StepControl(step.pipeline(), step.name(), clock.instant());
    }

    /** The deployment's step of that name; a 404 problem for one it does not have. */
    public StepDefinition step(String pipeline, String step) {
        return pipelines.step(pipeline, step)
                .orElseThrow(() -> Problem.notFound("no step " + Text.printable(step, 100) + " in pipeline " + Text.printable(pipeline, 100)));
    }

    private StepControl change(String pipeline, String step, Function<StepControl, StepControlEvent> change) {
        StepDefinition definition = step(pipeline, step);
        StepControl control = locked(definition);
        java.time.Instant heldSince = control.state() == StepControl.State.HELD ? control.since() : null;
        StepControlEvent event;
        try {
            event = change.apply(control);
        } catch (IllegalStateException e) {
            throw Problem.conflict(e.getMessage());
        }
        record(definition, control, event, heldSince);
        return control;
    }

    /**
     * Holds a running step (nothing happens to one that is paused or held already), with the cause its failures have
     * in common; its first probe comes after {@code coolDown}. Whether this call held it.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public boolean hold(StepDefinition step, StepControl.Cause cause, String why, Duration coolDown) {
        StepControl control = locked(step);
        Optional<StepControlEvent> held = control.hold(cause, why, clock.instant(), coolDown);
        held.ifPresent(event -> record(step, control, event, null));
        return held.isPresent();
    }

    /** Takes the step's next probe for this node, if one is due (see {@link StepControl#claimProbe}). */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public boolean claimProbe(StepDefinition step, String node, Duration claimTimeout) {
        return locked(step).claimProbe(node, clock.instant(), claimTimeout);
    }

    /** What a probe found: the step runs again, or stays held a longer cool-down (to {@code cap}). */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public void probed(StepDefinition step, boolean succeeded, String what, Duration coolDown, Duration cap) {
        StepControl control = locked(step);
        java.time.Instant heldSince = control.state() == StepControl.State.HELD ? control.since() : null;
        (succeeded ? control.probeSucceeded(what, clock.instant()) : control.probeFailed(what, clock.instant(), coolDown, cap))
                .ifPresent(event -> record(step, control, event, heldSince));
    }

    /** The newest {@code max} changes of every step, newest first: what the steps page lists under the table. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public List<StepControlEvent> recent(int max) {
        return em.createQuery("select e from StepControlEvent e order by e.at desc, e.id desc", StepControlEvent.class)
                .setMaxResults(max).getResultList();
    }

    /** The latest changes of a step's state, newest first. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public List<StepControlEvent> history(StepDefinition step, int max) {
        return em.createQuery("select e from StepControlEvent e where e.pipeline = :p and e.stepName = :s order by e.at desc, e.id desc",
                        StepControlEvent.class)
                .setParameter("p", step.pipeline()).setParameter("s", step.name()).setMaxResults(max).getResultList();
    }

    private StepControl locked(StepDefinition step) {
        StepControl control = em.find(StepControl.class, new StepControl.Key(step.pipeline(), step.name()), LockModeType.PESSIMISTIC_WRITE);
        if (control == null) {
            control = new StepControl(step.pipeline(), step.name(), clock.instant());
            em.persist(control);
            em.flush();
            em.lock(control, LockModeType.PESSIMISTIC_WRITE);
        }
        return control;
    }

    /** {@code heldSince}: when the step was held, if this change may end a hold. */
    private void record(StepDefinition step, StepControl control, StepControlEvent event, java.time.Instant heldSince) {
        em.persist(event);
        told(control, event);
        StepControl.State state = control.state();
        Duration held = heldSince != null && state != StepControl.State.HELD ? Duration.between(heldSince, event.at()) : null;
        afterCommit.run(() -> {
            EventLog.event("STEP").with("pipeline", step.pipeline()).with("step", step.name()).with("action", event.action())
                    .with("state", state).with("previousState", event.fromState()).with("by", event.actor())
                    .with("note", event.note()).with("cause", event.causeFingerprint())
                    .log("step " + step.name() + " of " + step.pipeline() + ": " + event.action() + " by " + event.actor()
                            + (event.note() == null ? "" : ": " + event.note()));
            metrics.stepStateChanged(step.pipeline(), step.name(), event.action());
            if (held != null) {
                metrics.stepHoldEnded(step.pipeline(), step.name(), held);
            }
            LOG.log(state == StepControl.State.RUNNING ? Level.INFO : Level.WARNING, "Step {0} of {1}: {2} by {3} ({4})",
                    new Object[] {step.name(), step.pipeline(), event.action(), event.actor(), event.note()});
            // this node's brokers at once; every node's sync applies it within seconds anyway
            brokerPauses.apply(step, state != StepControl.State.RUNNING);
        });
    }

    /**
     * A hold, and a resume (by an operator, or by a probe that succeeded), become events in this transaction: with the
     * step and the cause of the hold, and no run. A pause and a probe that failed are not told.
     */
    private void told(StepControl control, StepControlEvent event) {
        EventType type = switch (event.action()) {
            case "HELD" -> EventType.HELD;
            case "RESUMED", "PROBE_SUCCEEDED" -> EventType.RESUMED;
            default -> null;
        };
        if (type == null) {
            return;
        }
        Event.Cause cause = control.causeFingerprint() == null ? null
                : new Event.Cause(control.causeFingerprint(), control.causeException(), control.causeExample());
        events.record(new Event(type, event.at(), null, control.pipeline(), control.stepName(), event.note(), cause, null, event.actor()));
    }

    private String caller() {
        return session.getCallerPrincipal().getName();
    }
}
