package dev.lazarus.admin.boundary;

import dev.lazarus.deadletter.control.DeadLetterStats;
import dev.lazarus.deadletter.control.DeadLetters;
import dev.lazarus.deadletter.entity.DeadLetterFilter;
import dev.lazarus.outage.control.StepOverview;
import dev.lazarus.sweep.control.LiveRuns;
import dev.lazarus.sweep.control.StalenessRules.Health;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * The dashboard: counts by reason and status, the oldest open dead letter, time to resolve, the last 24 hours, and the
 * live runs at risk of going stale.
 */
@Named
@RequestScoped
public class DashboardPage {

    static final int HOURS = 24;

    @Inject
    DeadLetterStats stats;

    @Inject
    DeadLetters deadLetters;

    @Inject
    LiveRuns liveRuns;

    @Inject
    Clock clock;

    private DeadLetterStats.Stats current;
    private DeadLetters.Causes openCauses;
    private LiveRuns.AtRisk atRisk;

    /** The open dead letters grouped by cause, largest first. */
    public DeadLetters.Causes getOpenCauses() {
        if (openCauses == null) {
            openCauses = deadLetters.causes(new DeadLetterFilter(null, null, null, true, null, null, null, null, null, null));
        }
        return openCauses;
    }
    private List<Bar> hourly;

    @Inject
    StepOverview steps;

    private List<StepOverview.Step> allSteps;

    /** The steps that are paused or held: the dashboard's banner. */
    public List<StepOverview.Step> getStepsNotRunning() {
        return steps().stream().filter(step -> !step.isRunning()).toList();
    }

    /** Running steps whose queue a broker has paused outside Lazarus: a banner of their own, their runs wait unexplained. */
    public List<StepOverview.Step> getStepsPausedOnTheBroker() {
        return steps().stream().filter(StepOverview.Step::isPausedOnTheBroker).toList();
    }

    /** Every step, read once a request (both banners ask). */
    private List<StepOverview.Step> steps() {
        if (allSteps == null) {
            allSteps = steps.all();
        }
        return allSteps;
    }

    public String age(Instant since) {
        return FacesActions.age(since, clock.instant());
    }

    public DeadLetterStats.Stats getStats() {
        if (current == null) {
            current = stats.stats();
        }
        return current;
    }

    /**
     * Live runs at warning or stale: the runs the sweeper will dead-letter unless they move on. Counted in the database
     * (a query per kind of staleness over the runs past 80 % of the shortest threshold), not by assessing every run.
     */
    public long getRunsAtRisk() {
        return atRisk().total();
    }

    public long getRunsStale() {
        return atRisk().total(Health.STALE);
    }

    public long getRunsAtWarning() {
        return atRisk().total(Health.WARNING);
    }

    /** Where the runs at risk are: the steps with any, the most stale first. */
    public List<LiveRuns.AtRisk.Step> getStepsAtRisk() {
        return atRisk().steps();
    }

    private LiveRuns.AtRisk atRisk() {
        if (atRisk == null) {
            atRisk = liveRuns.atRisk(clock.instant());
        }
        return atRisk;
    }

    public String getOldestOpenAge() {
        return FacesActions.age(getStats().oldestOpen(), clock.instant());
    }

    public String getAverageTimeToResolution() {
        return FacesActions.human(getStats().averageTimeToResolution());
    }

    /** The resolved dead letters by the root cause their resolve recorded, and those that recorded none. */
    public List<RootCauseCount> getRootCauses() {
        List<RootCauseCount> counts = new java.util.ArrayList<>();
        getStats().resolvedByRootCause().forEach((name, count) -> counts.add(new RootCauseCount(name,
                DeadLetterStats.NOT_RECORDED.equals(name) ? "not recorded" : dev.lazarus.deadletter.entity.RootCause.valueOf(name).label(),
                count)));
        return counts;
    }

    /** How many resolved dead letters recorded a root cause. */
    public long getResolvedWithRootCause() {
        return getStats().resolvedByRootCause().entrySet().stream().filter(e -> !DeadLetterStats.NOT_RECORDED.equals(e.getKey()))
                .mapToLong(java.util.Map.Entry::getValue).sum();
    }

    /** One line of the root causes' card (a bean with getters: the page reads it by property). */
    public static final class RootCauseCount {
        private final String name;
        private final String label;
        private final long count;

        RootCauseCount(String name, String label, long count) {
            this.name = name;
            this.label = label;
            this.count = count;
        }

        public String getName() { return name; }
        public String getLabel() { return label; }
        public long getCount() { return count; }
    }

    /** Dead letters per hour over the last 24 hours, oldest hour first. */
    public List<Bar> getHourly() {
        if (hourly == null) {
            Instant now = clock.instant();
            Instant start = now.truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(HOURS - 1));
            long[] counts = new long[HOURS];
            for (Instant created : deadLetters.createdSince(start)) {
                int hour = (int) Duration.between(start, created).toHours();
                if (hour >= 0 && hour < HOURS) {
                    counts[hour]++;
                }
            }
            long max = Math.max(1, java.util.Arrays.stream(counts).max().orElse(1));
            hourly = new ArrayList<>();
            for (int i = 0; i < HOURS; i++) {
                hourly.add(new Bar(String.format("%02d:00", start.plus(Duration.ofHours(i)).atZone(ZoneOffset.UTC).getHour()),
                        counts[i], (int) (counts[i] * 100 / max)));
            }
        }
        return hourly;
    }

    /** One hour of the chart: its label (UTC), its count, its height in percent of the busiest hour. */
    public record Bar(String label, long count, int percent) {
    }
}
