package dev.lazarus.pipeline.control;

import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.RunState;
import dev.lazarus.pipeline.entity.StepControl;
import dev.lazarus.platform.control.BrokerManagement;
import dev.lazarus.platform.control.Brokers;
import dev.lazarus.platform.control.Problem;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Retry now ({@code POST /api/runs/{id}/retry-now}): a run whose step failed and waits in backoff has its message
 * delivered at once instead of after the delay.
 *
 * <p>How the backoff works: the step's transaction rolls back, and the broker puts the message back with the queue's
 * {@code redelivery-delay} (set from the step's retry policy, {@code BrokerTopology}) as a <em>scheduled</em> message.
 * Retry now asks every broker to deliver the scheduled messages of the step's queue that carry the run's id
 * ({@code QueueControl.deliverScheduledMessages(filter)}, filter {@code lazarusRunId = '<id>'}): the broker that holds it
 * delivers it now, the others find nothing. The delivery is the redelivery the backoff would have made later, so it
 * costs no attempt beyond itself, and the consumer claims it like any other (a stale copy is fenced by its generation).
 *
 * <p>The database decides first, in a transaction of its own that commits before the brokers are asked (a management
 * request cannot be sent inside a transaction): the run must be {@code RETRYING} (its step failed and has attempts left)
 * and its step running (a paused or held step's queue is paused on the broker, where the message would wait anyway).
 * That transaction restarts the run's wait ({@link Run#retriedNow}), so the sweeper does not take a run just retried
 * for one that stopped recovering.
 */
@Stateless
@RolesAllowed("operator") // the admin page's button too: an action, whatever page a viewer crafts a post from
public class RetriesNow {

    private static final Logger LOG = Logger.getLogger(RetriesNow.class.getName());

    @PersistenceContext
    EntityManager em;

    @Inject
    Pipelines pipelines;

    @Inject
    StepControls controls;

    @Inject
    Clock clock;

    @Inject
    BrokerManagement management;

    @Inject
    Brokers brokers;

    /** What was asked of the brokers: the run's step and queue, and which brokers answered. */
    public record Requested(UUID runId, String step, String queue, List<String> brokers) {
    }

    /**
     * Checks that the run waits in backoff and restarts its wait, in a transaction of its own.
     *
     * @throws Problem 404 for no such run; 409 naming why it is not waiting in backoff
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public StepDefinition waitingInBackoff(UUID runId) {
        Run run = em.find(Run.class, runId, LockModeType.PESSIMISTIC_WRITE);
        if (run == null) {
            throw Problem.notFound("no run " + runId);
        }
        if (run.state() != RunState.RETRYING) {
            throw Problem.conflict("run " + runId + " is not waiting in backoff: " + switch (run.state()) {
                case COMPLETED -> "it has completed";
                case DEAD_LETTERED -> "it is dead-lettered (requeue or recreate it instead)";
                case IN_PROGRESS -> "its step " + run.currentStep() + " is in progress";
                case PENDING -> "its step " + run.currentStep() + " is dispatched and waits for a consumer, not for a retry";
                case RETRYING -> throw new IllegalStateException();
            });
        }
        StepDefinition step = pipelines.step(run.pipeline(), run.currentStep()).orElseThrow(() -> Problem.conflict(
                "run " + runId + " is at step " + run.currentStep() + ", which pipeline " + run.pipeline() + " no longer has"));
        StepControl control = controls.current(step);
        if (control.state() != StepControl.State.RUNNING) {
            throw Problem.conflict("run " + runId + " waits at step " + step.name() + ", which is " + control.state()
                    + (control.state() == StepControl.State.PAUSED ? " by an operator" : " by Lazarus (an outage)")
                    + ": its messages wait until the step is resumed");
        }
        run.retriedNow(clock.instant());
        return step;
    }

    /**
     * Asks every broker to deliver the run's scheduled message on the step's queue now. Outside any transaction.
     *
     * @throws Problem 503 if no broker could be asked
     */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public Requested deliverNow(UUID runId, StepDefinition step) {
        String filter = StepMessage.RUN_ID + " = '" + runId + "'"; // a UUID: nothing in it can break out of the quotes
        List<String> answered = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        for (Brokers.Broker broker : brokers.all()) {
            try {
                management.invoke(broker, "queue." + step.queue(), "deliverScheduledMessages", filter);
                answered.add(broker.name());
            } catch (RuntimeException e) {
                failed.add(broker.name());
                LOG.log(Level.WARNING, "Could not ask broker {0} to deliver run {1}''s message on {2} now: {3}",
                        new Object[] {broker, runId, step.queue(), e.getMessage()});
            }
        }
        if (answered.isEmpty()) {
            throw new Problem(503, "Service Unavailable", "no broker could be asked to deliver run " + runId
                    + "'s message now (" + String.join(", ", failed) + "); it is still redelivered after its backoff");
        }
        LOG.log(Level.INFO, "Run {0}: its message on {1} is delivered now (asked brokers {2})",
                new Object[] {runId, step.queue(), answered});
        return new Requested(runId, step.name(), step.queue(), answered);
    }
}
