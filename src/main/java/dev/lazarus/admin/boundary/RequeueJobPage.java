package dev.lazarus.admin.boundary;

import dev.lazarus.deadletter.control.BulkJobs;
import dev.lazarus.deadletter.entity.BulkJob;
import dev.lazarus.platform.control.Clocks;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.io.Serializable;
import java.time.Instant;

/**
 * One bulk job's progress (a requeue, a discard or a resolve), and Cancel. View-scoped for the same reason as {@link DeadLetterPage}: Cancel acts on the
 * job the page shows, whose id the page learned from its URL.
 */
@Named
@ViewScoped
public class RequeueJobPage implements Serializable {

    private static final long serialVersionUID = 1L;

    @Inject
    BulkJobs bulkJobs;

    @Inject
    Clocks clocks;

    @Inject
    PageReads reads;

    // the view keeps its parameter; what the page shows is read per request (PageReads)
    private String id;
    private boolean drawn;

    /** The page's view action: it drew this page (see {@link FacesActions#outOfDate}). */
    public void draw() {
        drawn = true;
        FacesActions.idOf(id, "bulk job");
    }

    public Long getJobId() {
        return FacesActions.idOf(id, null);
    }

    public BulkJob getJob() {
        return reads.once("job", () -> getJobId() == null ? null : bulkJobs.find(getJobId()).orElse(null));
    }

    public int getJobPercent() {
        BulkJob current = getJob();
        return current == null ? 100 : current.percent();
    }

    public String cancelJob() {
        if (FacesActions.outOfDate(drawn)) {
            return null;
        }
        FacesActions.act(() -> bulkJobs.cancel(getJobId()), "Cancel requested; the job stops after its current batch.");
        return FacesActions.reload("requeue-job");
    }

    public String filterOf(BulkJob job) {
        return ListPages.describe(job);
    }

    /** The job's action as the page names it: Requeue, Discard, Resolve. */
    public String actionOf(BulkJob job) {
        return ListPages.nameOf(job);
    }

    public String age(Instant since) {
        return FacesActions.age(since, clocks.clock().instant());
    }

    public String getId() { return id; }
    public void setId(String id) { this.id = id; }
}
