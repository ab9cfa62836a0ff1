package dev.lazarus.outage.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.pipeline.control.Pipelines;
import dev.lazarus.pipeline.control.Runs;
import dev.lazarus.pipeline.control.StepContext;
import dev.lazarus.pipeline.control.StepControls;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.pipeline.control.StepHandler;
import dev.lazarus.pipeline.control.StepMessage;
import dev.lazarus.pipeline.control.StepProbe;
import dev.lazarus.pipeline.control.StepProcessor;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.platform.control.Metrics;
import dev.lazarus.platform.entity.Text;
import jakarta.annotation.Resource;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.jms.JMSContext;
import jakarta.jms.Message;
import jakarta.jms.QueueBrowser;
import java.io.StringReader;
import java.time.Duration;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Probes a held step: is what it depends on back? With the health probe its handler declares ({@link StepProbe}), or
 * else with one waiting message's dry run: the step's handler runs on that run's payload, in a transaction that is
 * rolled back whatever happens, as a {@linkplain StepContext#probe() probe}; the message stays where it waits and no
 * attempt is written, so the probe costs no run an attempt. A probe that fails, or takes longer than
 * {@code probe-timeout}, leaves the step held for a longer cool-down; one that succeeds lets it run again (ramping up).
 * No waiting message, nothing to protect: the step runs again, and is held again if its failures say so.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class Probes {

    private static final Logger LOG = Logger.getLogger(Probes.class.getName());

    /** Waiting runs a probe tries, one after the other, before it calls the step still failing. */
    static final int DRY_RUNS = 3;

    @Inject
    Pipelines pipelines;

    @Inject
    Runs runs;

    @Inject
    StepControls controls;

    @Inject
    HoldSettings.Reader settings;

    @Inject
    Metrics metrics;

    @Inject
    dev.lazarus.platform.control.Brokers brokers;

    @Inject
    Instance<Probes> self;

    @Resource
    SessionContext session;

    @Resource
    ManagedExecutorService executor;

    /** The longest a probe may take, whatever probe-timeout says: well within the 2 minutes a node's claim of it lasts. */
    static final Duration LONGEST_PROBE = Duration.ofSeconds(90);

    /** Probes the step (this node has claimed its probe) and records what it found. */
    public void probe(StepDefinition step) {
        HoldSettings now = settings.of(step);
        Duration timeout = now.probeTimeout().compareTo(LONGEST_PROBE) > 0 ? LONGEST_PROBE : now.probeTimeout();
        long started = System.nanoTime();
        String what;
        boolean succeeded;
        Future<String> probe = null;
        try {
            probe = executor.submit(() -> self.get().run(step));
            what = probe.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            succeeded = true;
        } catch (TimeoutException e) {
            probe.cancel(true); // its thread is interrupted, not left running beside the next probe
            what = "the probe took longer than " + timeout;
            succeeded = false;
        } catch (ExecutionException e) {
            Throwable cause = unwrapped(e.getCause() != null ? e.getCause() : e);
            what = "the probe failed: " + Text.truncate(String.valueOf(cause), 1000);
            succeeded = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        metrics.stepProbed(step.pipeline(), step.name(), succeeded, took);
        LOG.log(succeeded ? Level.INFO : Level.WARNING, "Probe of step {0} of {1} {2} in {3} ms: {4}",
                new Object[] {step.name(), step.pipeline(), succeeded ? "succeeded" : "failed", took.toMillis(), what});
        controls.probed(step, succeeded, what, now.coolDown(), now.coolDownMax());
    }

    /** The probe itself, outside any transaction: what it found if it succeeded; it throws if it failed. */
    public String run(StepDefinition step) throws Exception {
        try (Instance.Handle<? extends StepHandler> handler = pipelines.handlerFor(step)) {
            if (handler.get() instanceof StepProbe probe) {
                probe.probe();
                return "the step's health probe answered";
            }
        }
        List<Waiting> waiting = oldestWaiting(step);
        if (waiting.isEmpty()) {
            return "no message at the head of the step's queue is one a live run waits for: nothing to protect";
        }
        // the oldest few runs, one after the other until one goes through: a poison message at the head of the queue
        // (one that fails whatever the dependency does) must not keep the step held once what it depends on is back
        Throwable first = null;
        for (Waiting each : waiting) {
            StepMessage message = each.message();
            try {
                self.get().dryRun(step, message, each.run());
                return "a dry run of the step on run " + message.runId() + " succeeded";
            } catch (Exception failure) {
                Throwable cause = unwrapped(failure);
                if (StepProcessor.isNonRetryable(cause)) {
                    // the run's own fault, declared so: the step got as far as judging it, so what it depends on answers
                    return "a dry run of the step on run " + message.runId() + " failed with a failure of its own ("
                            + Text.truncate(String.valueOf(cause), 300) + "): what the step depends on answers";
                }
                if (first == null) {
                    first = cause;
                }
            }
        }
        throw first instanceof Exception exception ? exception : new IllegalStateException(first);
    }

    private static Throwable unwrapped(Throwable failure) {
        Throwable cause = failure;
        while (cause instanceof jakarta.ejb.EJBException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /**
     * The step's handler on a waiting run's payload, as a probe, in a transaction of its own that is rolled back
     * whatever happens: the handler's database work, if any, is never kept, and no attempt is written.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public void dryRun(StepDefinition step, StepMessage message, Run run) throws Exception {
        session.setRollbackOnly();
        StepContext context = new StepContext(message.runId(), step.pipeline(), step.name(), 0,
                step.retryPolicy().maxDeliveryAttempts(), 0, run.requeueCount(), message.idempotencyKey(),
                JSON.createReader(new StringReader(run.payload())).readObject(), true);
        try (Instance.Handle<? extends StepHandler> handler = pipelines.handlerFor(step)) {
            handler.get().handle(context);
        }
    }

    /** A message in the step's queue and the live run that waits for it. */
    private record Waiting(StepMessage message, Run run) {
    }

    /** How many messages a probe looks at, on each broker, for runs to try. */
    static final int LOOKED_AT = 200;

    /**
     * A few step messages waiting in the step's queue (on any broker) that a live run waits for, of {@value #DRY_RUNS}
     * different runs, looked for among the first {@value #LOOKED_AT} on each broker: first runs that have not failed at
     * the step yet ({@code PENDING}), oldest first, then, if there are not enough of those, runs that have
     * ({@code RETRYING}). A burst of poison messages (ones that fail whatever the dependency does, retryably) can hold a
     * step, and their redeliveries then fill the head of its queue; a probe that tried them would fail for as long as
     * they wait there, and keep the step held while the runs behind them wait. Garbage, and messages no run waits for (a
     * run stopped, discarded or moved on while the step was held: the step would refuse them, not run them), are passed
     * over.
     */
    private List<Waiting> oldestWaiting(StepDefinition step) throws jakarta.jms.JMSException {
        Map<java.util.UUID, Waiting> fresh = new LinkedHashMap<>();
        Map<java.util.UUID, Waiting> failedBefore = new LinkedHashMap<>();
        for (dev.lazarus.platform.control.Brokers.Broker broker : brokers.all()) {
            try (JMSContext context = broker.open();
                 QueueBrowser browser = context.createBrowser(context.createQueue(step.queue()))) {
                Enumeration<?> messages = browser.getEnumeration();
                for (int looked = 0; messages.hasMoreElements() && looked < LOOKED_AT && fresh.size() < DRY_RUNS; looked++) {
                    try {
                        StepMessage message = StepMessage.from((Message) messages.nextElement());
                        if (fresh.containsKey(message.runId()) || failedBefore.containsKey(message.runId())) {
                            continue;
                        }
                        runs.find(message.runId()).filter(r -> r.accepts(step.name(), message.generation())).ifPresent(run ->
                                (run.state() == dev.lazarus.pipeline.entity.RunState.PENDING ? fresh : failedBefore)
                                        .put(message.runId(), new Waiting(message, run)));
                    } catch (StepMessage.MalformedStepMessage | RuntimeException notAStepMessage) {
                        // garbage waits there too: the next one
                    }
                }
            }
            if (fresh.size() >= DRY_RUNS) {
                break;
            }
        }
        return java.util.stream.Stream.concat(fresh.values().stream(), failedBefore.values().stream()).limit(DRY_RUNS).toList();
    }
}
