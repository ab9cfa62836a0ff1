package dev.lazarus.admin.boundary;

import dev.lazarus.deadletter.control.DeadLetters;
import dev.lazarus.deadletter.control.BulkJobs;
import dev.lazarus.deadletter.entity.DeadLetterFilter;
import dev.lazarus.deadletter.entity.BulkJob;
import dev.lazarus.pipeline.control.Runs;
import dev.lazarus.pipeline.control.RunSummary;
import dev.lazarus.pipeline.entity.RunState;
import dev.lazarus.platform.boundary.QueryParams;
import dev.lazarus.platform.control.Clocks;
import dev.lazarus.platform.control.Problem;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The simple lists of the admin pages: runs, the investigation queue, bulk jobs. They have no buttons, so they are
 * request-scoped: a view-scoped bean of a page without a form would take a place among the few a session keeps (web.xml)
 * without the view that goes with it, and push out the bean of a page whose buttons still need it. One job's page, with
 * its Cancel, is {@link RequeueJobPage}.
 */
@Named
@RequestScoped
public class ListPages {

    static final int PAGE_SIZE = 100;

    @Inject
    Runs runs;

    @Inject
    DeadLetters deadLetters;

    @Inject
    BulkJobs bulkJobs;

    @Inject
    Clocks clocks;

    @Inject
    PageReads reads;

    private String state;

    /** The run list's state filter; one that is none is shown as a warning and treated as no filter. */
    public RunState readRunFilter() {
        return reads.<Optional<RunState>>once("state", () -> {
            try {
                return Optional.ofNullable(QueryParams.enumValue(RunState.class, "state", state));
            } catch (Problem e) {
                FacesActions.warn("Filter ignored: " + e.detail());
                return Optional.empty();
            }
        }).orElse(null);
    }

    /** The page's view action: reads the filter before the page is drawn (an action that returns nothing stays). */
    public void checkRunFilter() {
        readRunFilter();
    }

    public List<RunSummary> getRuns() {
        return reads.once("runs", () -> runs.list(readRunFilter(), null, 0, PAGE_SIZE));
    }

    public RunState[] getStates() {
        return RunState.values();
    }

    /** The open dead letters in triage order, each with its score and why it ranks there. */
    public List<DeadLetters.Triaged> getInvestigationQueue() {
        return reads.once("queue", () -> deadLetters.investigationQueue(DeadLetterFilter.ALL, 0, PAGE_SIZE));
    }

    public List<BulkJob> getJobs() {
        return reads.once("jobs", () -> bulkJobs.recent(null, PAGE_SIZE));
    }

    public String filterOf(BulkJob job) {
        return describe(job);
    }

    /** The job's action as a page names it: Requeue, Discard, Resolve. */
    public String actionOf(BulkJob job) {
        return nameOf(job);
    }

    static String nameOf(BulkJob job) {
        String name = job.action().apiName();
        return Character.toUpperCase(name.charAt(0)) + name.substring(1);
    }

    /** The job's filter as an operator reads it: every part of it, or "every open dead letter". */
    static String describe(BulkJob bulkJob) {
        DeadLetterFilter filter = bulkJob.filter();
        List<String> parts = new java.util.ArrayList<>();
        if (filter.reason() != null) parts.add("reason " + filter.reason());
        if (filter.status() != null) parts.add("status " + filter.status());
        if (filter.runId() != null) parts.add("run " + filter.runId());
        if (filter.pipeline() != null) parts.add("pipeline " + filter.pipeline());
        if (filter.step() != null) parts.add("step " + filter.step());
        if (filter.from() != null) parts.add("from " + filter.from());
        if (filter.to() != null) parts.add("before " + filter.to());
        if (filter.errorContains() != null) parts.add("error contains \u201c" + filter.errorContains() + "\u201d");
        if (filter.cause() != null) parts.add("cause " + filter.cause());
        return parts.isEmpty() ? "every open dead letter" : "open dead letters with " + String.join(", ", parts);
    }

    public String age(Instant since) {
        return FacesActions.age(since, clocks.clock().instant());
    }

    public String getState() { return state; }
    public void setState(String state) { this.state = state; }
}
