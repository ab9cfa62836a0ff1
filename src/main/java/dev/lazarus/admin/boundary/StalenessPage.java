package dev.lazarus.admin.boundary;

import dev.lazarus.platform.control.Problem;
import dev.lazarus.sweep.boundary.StalenessFilter;
import dev.lazarus.sweep.control.LiveRuns;
import dev.lazarus.sweep.control.StalenessRules.Health;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;

/**
 * The staleness view as a page: live runs most urgent first (the highest share of their threshold), with their health,
 * filtered by health and pipeline in the URL, by the same rules as {@code GET /api/staleness}. Request-scoped: the page
 * has no action, so it keeps nothing between requests; each request reads its filter and its runs once.
 */
@Named
@RequestScoped
public class StalenessPage {

    static final int PAGE_SIZE = 100;

    @Inject
    LiveRuns liveRuns;

    @Inject
    Clock clock;

    private String health;
    private String pipeline;
    private StalenessFilter filter;
    private LiveRuns.View view;

    /** The page's filter; one it cannot read is shown as a warning and treated as none. */
    public StalenessFilter getFilter() {
        if (filter == null) {
            try {
                filter = StalenessFilter.of(health, pipeline);
            } catch (Problem e) {
                FacesActions.warn("Filter ignored: " + e.detail());
                filter = new StalenessFilter(null, null);
            }
        }
        return filter;
    }

    /** The page's view action: reads the filter before the page is drawn, so a warning about it shows at the top. */
    public void checkFilter() {
        getFilter();
    }

    public LiveRuns.View getView() {
        if (view == null) {
            view = liveRuns.view(clock.instant(), getFilter().pipeline(), getFilter().health(), 0, PAGE_SIZE);
        }
        return view;
    }

    /** The assessed runs of this health ({@code STALE}, {@code WARNING}, {@code HEALTHY}), whatever the health filter. */
    public long count(String of) {
        return getView().counts().getOrDefault(Health.valueOf(of), 0L);
    }

    /** How many live runs were assessed (all of them, unless the view was truncated). */
    public long getAssessed() {
        return getView().counts().values().stream().mapToLong(Long::longValue).sum();
    }

    public Health[] getHealths() {
        return Health.values();
    }

    /** How a health is written in a URL and a CSS class: {@code stale}. */
    public String lower(Health value) {
        return value.name().toLowerCase(Locale.ROOT);
    }

    public String human(long millis) {
        return FacesActions.human(Duration.ofMillis(millis));
    }

    /** The share of its threshold a run has spent in its state, as a whole percentage. */
    public String percent(double ratio) {
        return Math.round(ratio * 100) + " %";
    }

    public String getHealth() { return health; }
    public void setHealth(String health) { this.health = health; }
    public String getPipeline() { return pipeline; }
    public void setPipeline(String pipeline) { this.pipeline = pipeline; }
}
