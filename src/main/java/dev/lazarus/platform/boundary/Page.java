package dev.lazarus.platform.boundary;

import dev.lazarus.platform.control.Counted;
import java.util.List;

/**
 * One page of a list endpoint: the items, how many match in all, and where this page starts. {@code totalCapped} is
 * true when more than {@code total} match (a search counts up to a cap), and absent otherwise.
 */
public record Page<T>(List<T> items, long total, int offset, int limit, Boolean totalCapped) {

    public Page(List<T> items, long total, int offset, int limit) {
        this(items, total, offset, limit, null);
    }

    public Page(List<T> items, Counted counted, int offset, int limit) {
        this(items, counted.total(), offset, limit, counted.capped() ? Boolean.TRUE : null);
    }

    public static final int DEFAULT_LIMIT = 50;
    public static final int MAX_LIMIT = 500;

    /** Clamps a client's paging to what the API serves. */
    public static int limit(Integer requested) {
        if (requested == null) {
            return DEFAULT_LIMIT;
        }
        return Math.max(1, Math.min(MAX_LIMIT, requested));
    }
}
