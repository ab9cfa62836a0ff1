package dev.lazarus.platform.control;

import jakarta.persistence.LockModeType;
import jakarta.persistence.TypedQuery;

/**
 * Row locks for work that many writers share (sweeps, reconciler passes, two nodes): the rows a query returns
 * are locked as they are read, and rows another transaction holds are skipped rather than waited for. Such work
 * then never waits for a lock after it started, so it can never be one side of a deadlock, and a row held for
 * long (a requeue taking its message, a transaction in doubt) is simply left for the next pass.
 */
public final class Locks {

    /** The lock timeout that Hibernate turns into {@code SKIP LOCKED} (its {@code LockOptions.SKIP_LOCKED}). */
    private static final int SKIP_LOCKED = -2;

    private Locks() {
    }

    /** {@code query}, locking each row it returns for writing and leaving out those another transaction holds. */
    public static <T> TypedQuery<T> skippingLocked(TypedQuery<T> query) {
        return query.setLockMode(LockModeType.PESSIMISTIC_WRITE)
                .setHint("jakarta.persistence.lock.timeout", SKIP_LOCKED);
    }
}
