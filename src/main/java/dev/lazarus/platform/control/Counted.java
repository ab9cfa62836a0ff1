package dev.lazarus.platform.control;

/**
 * How many rows match, counted up to a cap: a search that matches a third of a million runs is counted no further than
 * the cap (counting all of them took longer than finding the first page), and says so.
 *
 * @param total  the rows that match, or the cap when more do
 * @param capped whether more than {@code total} match
 */
public record Counted(long total, boolean capped) {

    /** What a count of {@code found} rows read with a limit of {@code cap + 1} says. */
    public static Counted upTo(int cap, long found) {
        return found > cap ? new Counted(cap, true) : new Counted(found, false);
    }
}
