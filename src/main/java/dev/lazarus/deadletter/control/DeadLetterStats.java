package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.deadletter.entity.DeadLetterStatus;
import dev.lazarus.deadletter.entity.RootCause;
import jakarta.ejb.Stateless;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** The read model operators triage with: totals per reason and status, ages, time to resolution. */
@Stateless
public class DeadLetterStats {

    /** Time to resolution is averaged over the most recently closed dead letters, at most this many. */
    static final int RESOLUTION_SAMPLE = 10_000;

    @PersistenceContext
    EntityManager em;

    public Stats stats() {
        Map<DeadLetterReason, long[]> perReason = new EnumMap<>(DeadLetterReason.class);
        for (Object[] row : em.createQuery("select d.reason, count(d), sum(case when d.status in :open then 1 else 0 end)"
                        + " from DeadLetter d group by d.reason", Object[].class)
                .setParameter("open", DeadLetterStatus.OPEN).getResultList()) {
            perReason.put((DeadLetterReason) row[0], new long[] {((Number) row[1]).longValue(), ((Number) row[2]).longValue()});
        }
        List<ReasonCount> reasons = new ArrayList<>();
        for (DeadLetterReason reason : DeadLetterReason.values()) {
            long[] counts = perReason.getOrDefault(reason, new long[] {0, 0});
            reasons.add(new ReasonCount(reason, counts[0], counts[1]));
        }
        Map<DeadLetterStatus, Long> byStatus = new EnumMap<>(DeadLetterStatus.class);
        for (DeadLetterStatus status : DeadLetterStatus.values()) {
            byStatus.put(status, 0L);
        }
        for (Object[] row : em.createQuery("select d.status, count(d) from DeadLetter d group by d.status", Object[].class).getResultList()) {
            byStatus.put((DeadLetterStatus) row[0], ((Number) row[1]).longValue());
        }
        long total = byStatus.values().stream().mapToLong(Long::longValue).sum();
        long open = DeadLetterStatus.OPEN.stream().mapToLong(byStatus::get).sum();
        Instant oldestOpen = em.createQuery("select min(d.createdAt) from DeadLetter d where d.status in :open", Instant.class)
                .setParameter("open", DeadLetterStatus.OPEN).getSingleResult();
        Instant newest = em.createQuery("select max(d.createdAt) from DeadLetter d", Instant.class).getSingleResult();
        List<Object[]> closed = em.createQuery("select d.createdAt, d.closedAt from DeadLetter d where d.closedAt is not null"
                        + " order by d.closedAt desc", Object[].class)
                .setMaxResults(RESOLUTION_SAMPLE).getResultList();
        Duration averageResolution = closed.isEmpty() ? null : Duration.ofMillis((long) closed.stream()
                .mapToLong(r -> Duration.between((Instant) r[0], (Instant) r[1]).toMillis()).average().orElse(0));
        return new Stats(total, open, byStatus, reasons, oldestOpen, newest, averageResolution, closed.size(), resolvedByRootCause());
    }

    /** The key of the resolved dead letters whose resolve recorded no root cause. */
    public static final String NOT_RECORDED = "NOT_RECORDED";

    /**
     * The resolved dead letters (those the retention keeps) by the root cause their resolve recorded: every root cause,
     * in the registry's order, then {@link #NOT_RECORDED}.
     */
    Map<String, Long> resolvedByRootCause() {
        Map<String, Long> counts = new java.util.LinkedHashMap<>();
        for (RootCause cause : RootCause.values()) {
            counts.put(cause.name(), 0L);
        }
        counts.put(NOT_RECORDED, 0L);
        for (Object[] row : em.createQuery("select d.resolvedRootCause, count(d) from DeadLetter d where d.status = :resolved"
                        + " group by d.resolvedRootCause", Object[].class)
                .setParameter("resolved", DeadLetterStatus.RESOLVED_MANUALLY).getResultList()) {
            counts.put(row[0] == null ? NOT_RECORDED : ((RootCause) row[0]).name(), ((Number) row[1]).longValue());
        }
        return counts;
    }

    public record ReasonCount(DeadLetterReason reason, long total, long open) {
    }

    /**
     * {@code resolvedByRootCause}: how many resolved dead letters each root cause accounts for ({@link #resolvedByRootCause}),
     * what the time to resolve is read next to.
     */
    public record Stats(long total, long open, Map<DeadLetterStatus, Long> byStatus, List<ReasonCount> byReason,
                        Instant oldestOpen, Instant newest, Duration averageTimeToResolution, int resolutionSample,
                        Map<String, Long> resolvedByRootCause) {
    }
}
