package dev.lazarus.pipeline.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The first delivery's attempt is written at most once: by the watcher of a long step, or before a failure, or never. */
class InlineAttemptTest {

    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    private final AtomicInteger writes = new AtomicInteger();

    @AfterEach
    void stopTimers() {
        timers.shutdownNow();
    }

    private static final StepAttempts.Ending FAILED = new StepAttempts.Ending(dev.lazarus.pipeline.entity.AttemptOutcome.FAILED,
            "java.lang.IllegalStateException", "failed");

    private InlineAttempt start(Duration writeAfter, java.util.function.BooleanSupplier write) {
        return InlineAttempt.start("run-1:parse#1", 1, Instant.now(), ending -> {
            writes.incrementAndGet();
            return write.getAsBoolean();
        }, new AttemptWatch(timers), writeAfter);
    }

    /** A write in progress: says it started, then holds until released. */
    private static void holdUntil(CountDownLatch started, CountDownLatch released) {
        started.countDown();
        try {
            assertTrue(released.await(10, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aQuickStepIsNeverWrittenOnItsOwn() throws Exception {
        InlineAttempt attempt = start(Duration.ofMillis(200), () -> true);
        assertFalse(attempt.finish(), "finished before the timer: written with its success instead");
        assertFalse(attempt.recorded());
        // the timer was cancelled: once its moment has passed it still has not written anything
        timers.schedule(() -> { }, 400, TimeUnit.MILLISECONDS).get();
        assertEquals(0, writes.get());
    }

    @Test
    void aLongStepIsWrittenByTheTimerOnce() throws Exception {
        CountDownLatch written = new CountDownLatch(1);
        InlineAttempt attempt = start(Duration.ofMillis(1), () -> {
            written.countDown();
            return true;
        });
        assertTrue(written.await(10, TimeUnit.SECONDS));
        assertTrue(attempt.finish(), "its success must not write the attempt a second time");
        assertTrue(attempt.recorded());
        assertTrue(attempt.writeNow(FAILED));
        assertEquals(1, writes.get());
    }

    @Test
    void aFailingStepWritesItsAttemptBeforeItsFailureAndTheTimerNoLonger() throws Exception {
        InlineAttempt attempt = start(Duration.ofMillis(200), () -> true);
        assertTrue(attempt.writeNow(FAILED));
        timers.schedule(() -> { }, 400, TimeUnit.MILLISECONDS).get();
        assertEquals(1, writes.get());
        assertTrue(attempt.recorded());
    }

    @Test
    void theStepWaitsForAWriteInProgressAndLearnsItsOutcome() throws Exception {
        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        InlineAttempt attempt = start(Duration.ofMillis(1), () -> {
            holdUntil(writing, release);
            return true;
        });
        assertTrue(writing.await(10, TimeUnit.SECONDS));
        CompletableFuture<Boolean> finished = CompletableFuture.supplyAsync(attempt::finish);
        assertFalse(finished.isDone(), "the step must not record its outcome while its attempt is being written");
        release.countDown();
        assertTrue(finished.get(10, TimeUnit.SECONDS));
        assertEquals(1, writes.get());
    }

    @Test
    void aTimerWriteThatFailsIsTriedAgainWhileTheStepRuns() throws Exception {
        AtomicInteger tries = new AtomicInteger();
        CountDownLatch written = new CountDownLatch(1);
        InlineAttempt attempt = start(Duration.ofMillis(5), () -> {
            if (tries.incrementAndGet() < 3) {
                throw new IllegalStateException("lock wait ran out");
            }
            written.countDown();
            return true;
        });
        assertTrue(written.await(10, TimeUnit.SECONDS), "written at the third try");
        assertTrue(attempt.finish());
        assertEquals(3, writes.get());
    }

    @Test
    void aStepThatEndsWhileTheTimerWriteFailsStopsTheTimerForGood() throws Exception {
        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch fail = new CountDownLatch(1);
        InlineAttempt attempt = start(Duration.ofMillis(200), () -> {
            holdUntil(writing, fail);
            throw new IllegalStateException("lock wait ran out");
        });
        assertTrue(writing.await(10, TimeUnit.SECONDS));
        CompletableFuture<Boolean> finished = CompletableFuture.supplyAsync(attempt::finish);
        fail.countDown();
        assertFalse(finished.get(10, TimeUnit.SECONDS), "the write failed: the attempt is not written");
        // the failed write would have tried again after 200 ms: the step has ended, so nothing may write any more
        timers.schedule(() -> { }, 600, TimeUnit.MILLISECONDS).get();
        assertEquals(1, writes.get());
        assertFalse(attempt.writeNow(FAILED), "after the end nothing writes it");
        assertEquals(1, writes.get());
    }

    @Test
    void aWriteThatFailsLeavesTheAttemptUnwrittenAndSaysSo() throws Exception {
        InlineAttempt attempt = start(Duration.ofMillis(200), () -> {
            throw new IllegalStateException("the database is away");
        });
        assertFalse(attempt.writeNow(FAILED));
        assertFalse(attempt.finish());
        assertFalse(attempt.recorded());
    }
}
