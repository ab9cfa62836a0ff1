package dev.lazarus.pipeline.control;

import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Watches the steps that run inline ({@link InlineAttempt}) and writes the attempt of each that runs longer than
 * {@code lazarus.consumer.in-progress-after}: one look every {@value #LOOK_MILLIS} ms over the steps running now, and a
 * write (a transaction of its own) handed to the managed executor for each that is due.
 *
 * <p>Why one watcher: nearly every step ends well before it is due, and a timer scheduled and cancelled for each of
 * them cost a step more CPU than its handler's JSON (benchmarks.md, issue #22). An attempt is written at most
 * {@value #LOOK_MILLIS} ms late.
 */
@ApplicationScoped
public class AttemptWatch {

    private static final Logger LOG = Logger.getLogger(AttemptWatch.class.getName());
    static final long LOOK_MILLIS = 100;

    /** The server's managed executor (its writes run with the application's context). */
    @Resource(lookup = "java:comp/DefaultManagedScheduledExecutorService")
    ScheduledExecutorService executor;

    /** For CDI: the executor is injected. */
    public AttemptWatch() {
    }

    /** With an executor of the caller's (a test's). */
    AttemptWatch(ScheduledExecutorService executor) {
        this.executor = executor;
    }

    private final Set<InlineAttempt> running = ConcurrentHashMap.newKeySet();
    private Future<?> looking;

    void watch(InlineAttempt attempt) {
        running.add(attempt);
        if (looking == null) {
            start();
        }
    }

    void forget(InlineAttempt attempt) {
        running.remove(attempt);
    }

    private synchronized void start() {
        if (looking == null) {
            looking = executor.scheduleWithFixedDelay(this::look, LOOK_MILLIS, LOOK_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    private void look() {
        try {
            long now = System.nanoTime();
            for (InlineAttempt attempt : running) {
                if (attempt.due(now)) {
                    running.remove(attempt); // written once; a write that fails puts it back (InlineAttempt)
                    executor.execute(attempt::writeIfStillPending);
                }
            }
        } catch (RuntimeException e) {
            // never let the periodic look die: the next one tries again
            LOG.log(Level.WARNING, "Could not look at the running steps' attempts: {0}", String.valueOf(e));
        }
    }

    @PreDestroy
    synchronized void stop() {
        if (looking != null) {
            looking.cancel(false);
        }
    }
}
