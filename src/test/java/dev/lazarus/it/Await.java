package dev.lazarus.it;

import java.time.Duration;
import java.util.function.Predicate;
import java.util.function.Supplier;

/** Waits for a condition by polling, never by sleeping a fixed time; fails with the last value seen. */
public final class Await {

    private Await() {
    }

    public static <T> T until(String what, Duration timeout, Supplier<T> probe, Predicate<T> done) {
        long deadline = System.nanoTime() + timeout.toNanos();
        T last = null;
        while (System.nanoTime() < deadline) {
            last = probe.get();
            if (done.test(last)) {
                return last;
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new AssertionError("timed out after " + timeout + " waiting for " + what + "; last seen: " + last);
    }
}
