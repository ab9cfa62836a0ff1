package dev.lazarus.platform.boundary;

import java.util.List;

/** One page of a list endpoint: the items, how many match in all, and where this page starts. */
public record Page<T>(List<T> items, long total, int offset, int limit) {

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
