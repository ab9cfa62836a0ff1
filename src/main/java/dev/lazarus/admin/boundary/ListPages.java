package dev.lazarus.admin.boundary;

import dev.lazarus.deadletter.control.DeadLetters;
import dev.lazarus.deadletter.control.BulkJobs;
import dev.lazarus.deadletter.control.DeadLetterSummary;
import dev.lazarus.deadletter.entity.DeadLetterFilter;
import dev.lazarus.deadletter.entity.BulkJob;
import dev.lazarus.pipeline.control.Runs;
import dev.lazarus.pipeline.control.RunSummary;
import dev.lazarus.pipeline.entity.RunState;
import dev.lazarus.platform.boundary.QueryParams;
import dev.lazarus.platform.control.Clocks;
import dev.lazarus.platform.control.Problem;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.io.Serializable;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The simple lists of the admin pages: runs, the investigation queue, bulk jobs, and one job's progress.
 * View-scoped for the same reason as {@link DeadLetterPage}: Cancel acts on the job the page shows.
 */
@Named
@ViewScoped
public class ListPages implements Serializable {

    private static final long serialVersionUID = 1L;

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

    // the view keeps its parameters; what the page shows is read per request (PageReads)
    private String state;
    private long jobId;

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

    public List<DeadLetterSummary> getInvestigationQueue() {
        return reads.once("queue", () -> deadLetters.investigationQueue(DeadLetterFilter.ALL, 0, PAGE_SIZE));
    }

    public List<BulkJob> getJobs() {
        return reads.once("jobs", () -> bulkJobs.recent(null, PAGE_SIZE));
    }

    public BulkJob getJob() {
        return reads.once("job", () -> bulkJobs.find(jobId).orElse(null));
    }

    public int getJobPercent() {
        BulkJob current = getJob();
        return current == null ? 100 : current.percent();
    }

    public String cancelJob() {
        FacesActions.act(() -> bulkJobs.cancel(jobId), "Cancel requested; the job stops after its current batch.");
        return FacesActions.reload("requeue-job");
    }

    /** The job's action as a page names it: Requeue, Discard, Resolve. */
    public String actionOf(BulkJob job) {
        String name = job.action().apiName();
        return Character.toUpperCase(name.charAt(0)) + name.substring(1);
    }

    /** The job's filter as an operator reads it: every part of it, or "every open dead letter". */
    public String filterOf(BulkJob bulkJob) {
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
    public long getJobId() { return jobId; }
    public void setJobId(long jobId) { this.jobId = jobId; }
}
