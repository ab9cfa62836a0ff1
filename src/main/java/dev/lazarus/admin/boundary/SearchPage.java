package dev.lazarus.admin.boundary;

import dev.lazarus.deadletter.control.DeadLetterSummary;
import dev.lazarus.deadletter.control.DeadLetters;
import dev.lazarus.deadletter.entity.DeadLetterFilter;
import dev.lazarus.pipeline.control.RunSearches;
import dev.lazarus.pipeline.control.RunSummary;
import dev.lazarus.pipeline.control.Runs;
import dev.lazarus.pipeline.control.SearchSyntax;
import dev.lazarus.pipeline.entity.RunSearch;
import dev.lazarus.pipeline.entity.RunTags;
import dev.lazarus.platform.control.Clocks;
import dev.lazarus.platform.control.Counted;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The search box's page ({@code search.xhtml?q=...}): the runs and the dead letters whose runs match what the operator
 * typed ({@link SearchSyntax}). A search it cannot read is a warning on the page, not an error page. No buttons, so
 * request-scoped (see {@link ListPages}).
 */
@Named
@RequestScoped
public class SearchPage {

    static final int PAGE_SIZE = 100;
    private static final Counted NONE = new Counted(0, false);

    @Inject
    Runs runs;

    @Inject
    DeadLetters deadLetters;

    @Inject
    RunSearches searches;

    @Inject
    Clocks clocks;

    @Inject
    PageReads reads;

    private String q;

    /** The search the box holds; empty if it holds none or one that cannot be read (then a warning says why). */
    public Optional<RunSearch> search() {
        return reads.once("search", () -> {
            try {
                RunSearch search = SearchSyntax.parse(q);
                return search.isEmpty() ? Optional.<RunSearch>empty() : Optional.of(search);
            } catch (IllegalArgumentException bad) {
                FacesActions.warn("Search not understood: " + bad.getMessage());
                return Optional.<RunSearch>empty();
            }
        });
    }

    /** The page's view action: reads the search before the page is drawn, so a warning about it shows at the top. */
    public void check() {
        search();
    }

    public boolean isSearched() {
        return search().isPresent();
    }

    public List<RunSummary> getRuns() {
        return reads.once("runs", () -> search().map(s -> runs.list(null, null, s, 0, PAGE_SIZE)).orElse(List.of()));
    }

    /** How many runs match, counted up to {@link RunSearches#COUNT_CAP} (as the API does). */
    public Counted getRunCount() {
        return reads.once("runCount", () -> search().map(s -> runs.countFound(null, null, s)).orElse(NONE));
    }

    public List<DeadLetterSummary> getDeadLetters() {
        return reads.once("deadLetters", () -> search().map(s -> deadLetters.list(DeadLetterFilter.ALL, s, 0, PAGE_SIZE)).orElse(List.of()));
    }

    /** How many dead letters of matching runs there are, counted up to the same cap. */
    public Counted getDeadLetterCount() {
        return reads.once("deadLetterCount", () -> search().map(s -> deadLetters.countFound(DeadLetterFilter.ALL, s)).orElse(NONE));
    }

    /** A count as the page shows it: "1000+" when more match than were counted. */
    public String shown(Counted count) {
        return count.total() + (count.capped() ? "+" : "");
    }

    /** The key and labels of the runs the page shows. */
    public RunTags tags(UUID run) {
        Map<UUID, RunTags> tags = reads.once("tags", () -> searches.tagsOf(java.util.stream.Stream.concat(
                getRuns().stream().map(RunSummary::id), getDeadLetters().stream().map(DeadLetterSummary::runId))
                .filter(java.util.Objects::nonNull).distinct().toList()));
        return run == null ? RunTags.NONE : tags.getOrDefault(run, RunTags.NONE);
    }

    public String age(Instant since) {
        return since == null ? "" : FacesActions.age(since, clocks.clock().instant());
    }

    public int getPageSize() { return PAGE_SIZE; }
    public String getQ() { return q; }
    public void setQ(String q) { this.q = q; }
}
