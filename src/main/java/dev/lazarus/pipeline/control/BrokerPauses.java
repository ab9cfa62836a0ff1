package dev.lazarus.pipeline.control;

import dev.lazarus.platform.control.BrokerManagement;
import dev.lazarus.platform.control.Brokers;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A paused or held step's queue, paused on the broker: Artemis's own pause, which stops delivering the queue's messages
 * to every consumer of every node at once (the node's MDBs stay connected, receive nothing, and the console shows the
 * queue paused), keeps the messages where they are with their delivery counts untouched (scheduled redeliveries wait
 * there too), and survives a restart of the broker (it is persisted). Every broker of a cluster pauses its own copy of
 * the queue. Why not WildFly's delivery control of the MDBs: it acts on one node, so every node would have to apply
 * it, a node that starts would deliver until it did, and the console would not show it.
 *
 * <p>The database says what each step's state is ({@link StepControls}); every node keeps the queue of a paused or held
 * step paused on every broker (every 2 s), so a pause reaches the brokers even if the node that made it died first, and
 * resumes it once when the step runs again. A queue paused in the Artemis console while its step runs is left alone.
 */
@ApplicationScoped
public class BrokerPauses {

    private static final Logger LOG = Logger.getLogger(BrokerPauses.class.getName());

    @Inject
    BrokerManagement management;

    @Inject
    Brokers brokers;

    /** Pauses (or resumes) the step's queue on every broker that does not already agree; whether every broker agrees now. */
    public boolean apply(StepDefinition step, boolean paused) {
        boolean agreed = true;
        for (Brokers.Broker broker : brokers.all()) {
            String queue = "queue." + step.queue();
            try {
                boolean isPaused = management.flag(broker, queue, "isPaused");
                if (isPaused != paused) {
                    if (paused) {
                        management.invoke(broker, queue, "pause", true); // persisted: a restarted broker keeps it paused
                    } else {
                        management.invoke(broker, queue, "resume");
                    }
                    LOG.log(Level.INFO, "Queue {0} on broker {1} {2}", new Object[] {step.queue(), broker, paused ? "paused" : "resumed"});
                }
            } catch (RuntimeException e) {
                agreed = false;
                LOG.log(Level.WARNING, "Could not {0} queue {1} on broker {2}; trying again in a moment: {3}",
                        new Object[] {paused ? "pause" : "resume", step.queue(), broker, e.getMessage()});
            }
        }
        return agreed;
    }
}
