package dev.lazarus.pipeline.boundary;

import dev.lazarus.pipeline.control.Dispatches;
import dev.lazarus.pipeline.control.OwedDispatches;
import dev.lazarus.pipeline.control.StepDispatcher;
import dev.lazarus.platform.control.Failures;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Keeps the promise of {@link Dispatches}, on every node:
 * <ul>
 * <li>every 5 s it says this node is alive, and until when everything it recorded was sent ({@link #beat}, a timer of
 * its own, so that a long recovery never makes a live node look silent); a node whose send after a commit failed
 * retires its incarnation here;</li>
 * <li>every 5 s it sends again the dispatches of incarnations that are gone ({@link #pass}): a node killed between a
 * commit and its send (taken over once it has been silent for {@code lazarus.dispatch.node-silent-after}; by the node
 * itself as soon as it starts again), a retired one, and, once a minute, any incarnation a waiting run names that never
 * said it was alive. Only runs moved since the gone incarnation's {@code sent_until} are taken, in batches, each
 * committed (the runs now name this node) before it is sent; a pass sends for at most {@value #PASS_SECONDS} s and the
 * next goes on.</li>
 * </ul>
 * Safe on every node at once: a run is taken over by one of them (its row is locked), and a dispatch sent twice reaches
 * its queue once (one broker) or is a replay.
 */
@Singleton
@Startup
@DependsOn("SchemaMigration")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class DispatchRecovery {

    private static final Logger LOG = Logger.getLogger(DispatchRecovery.class.getName());
    private static final int BATCH = 500;
    static final int PASS_SECONDS = 10;
    /** Passes between two looks for incarnations nobody knows (a minute), and between two forgettings (ten minutes). */
    private static final int UNKNOWN_EVERY = 12;
    private static final int FORGET_EVERY = 120;

    @Inject
    Dispatches dispatches;

    @Inject
    OwedDispatches owed;

    @Inject
    Clock clock;

    /** How long a node may be silent before another takes over the dispatches it owes (it says it is alive every 5 s). */
    @Inject
    @ConfigProperty(name = "lazarus.dispatch.node-silent-after", defaultValue = "PT20S")
    Duration silentAfter;

    private final AtomicBoolean passing = new AtomicBoolean();
    private int passes;

    /** Passes or beats that failed in a row: the first is a warning, the ones after it (an outage that lasts) only at FINE. */
    private int failedInARow;

    @PostConstruct
    void announce() {
        beat();
    }

    @Schedule(hour = "*", minute = "*", second = "*/5", persistent = false, info = "Lazarus: this node is alive")
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public void beat() {
        try {
            Dispatches.Retired retired = dispatches.retireIfSendFailed();
            owed.seen(dispatches.incarnation(), dispatches.sentUntil(), retired);
        } catch (RuntimeException e) {
            failed("say that this node is alive", e);
        }
    }

    @Schedule(hour = "*", minute = "*", second = "2/5", persistent = false, info = "Lazarus: dispatches owed by nodes that are gone")
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public void pass() {
        if (!passing.compareAndSet(false, true)) {
            return; // the previous pass is still sending
        }
        try {
            String current = dispatches.incarnation();
            List<OwedDispatches.Gone> gone = new ArrayList<>(owed.gone(current, silentAfter));
            if (passes % UNKNOWN_EVERY == 0) {
                gone.addAll(owed.unknown(current, clock.instant().minus(silentAfter)));
            }
            Instant stopAt = Instant.now().plusSeconds(PASS_SECONDS);
            for (OwedDispatches.Gone incarnation : gone) {
                if (!recover(incarnation, stopAt)) {
                    break;
                }
            }
            if (passes % FORGET_EVERY == 0) {
                owed.forgetIdle(current);
            }
            passes++;
            if (failedInARow > 0) {
                LOG.log(Level.INFO, "The pass over owed dispatches works again, after {0} that failed", failedInARow);
                failedInARow = 0;
            }
        } catch (RuntimeException e) {
            failed("send again what nodes that are gone owe", e);
        } finally {
            passing.set(false);
        }
    }

    /** Sends what {@code gone} owes, a batch at a time; false if this pass should stop (the broker refused, or time is up). */
    private boolean recover(OwedDispatches.Gone gone, Instant stopAt) {
        int sent = 0;
        boolean goOn = true;
        while (goOn) {
            try (Dispatches.Recording recording = dispatches.recording()) {
                List<StepDispatcher.Dispatch> batch;
                try {
                    batch = owed.takeOver(gone, recording.incarnation(), recording.startedAt(), BATCH);
                } catch (RuntimeException e) {
                    if (Failures.commitOutcomeUnknown(e)) {
                        recording.outcomeUnknown(); // the runs taken over may name this incarnation now, unsent
                    }
                    throw e;
                }
                if (batch.isEmpty()) {
                    break;
                }
                goOn = recording.send(batch);
                sent += goOn ? batch.size() : 0;
            }
            goOn = goOn && Instant.now().isBefore(stopAt);
        }
        if (sent > 0) {
            LOG.log(Level.WARNING, "Sent {0} dispatch(es) again that {1} recorded and may not have sent (it is gone: stopped mid-send,"
                    + " or its broker did not take them); the broker drops those it already had", new Object[] {sent, gone.incarnation()});
        }
        return goOn;
    }

    private void failed(String what, RuntimeException e) {
        LOG.log(failedInARow++ == 0 ? Level.WARNING : Level.FINE, "Could not " + what + "; trying again in 5 s: {0}",
                Failures.rootMessage(e));
    }
}
