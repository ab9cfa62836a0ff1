package dev.lazarus.admin.boundary;

import dev.lazarus.deadletter.control.RequeueJobs;
import dev.lazarus.deadletter.entity.RequeueJob;
import dev.lazarus.platform.control.Clocks;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.io.Serializable;
import java.time.Instant;

/**
 * One requeue job's progress, and Cancel. View-scoped for the same reason as {@link DeadLetterPage}: Cancel acts on the
 * job the page shows, whose id the page learned from its URL.
 */
@Named
@ViewScoped
public class RequeueJobPage implements Serializable {

    private static final long serialVersionUID = 1L;

    @Inject
    RequeueJobs requeueJobs;

    @Inject
    Clocks clocks;

    @Inject
    PageReads reads;

    // the view keeps its parameter; what the page shows is read per request (PageReads)
    private String id;
    private boolean drawn;

    /** The page's view action: it drew this page (see {@link FacesActions#drawn}). */
    public void draw() {
        drawn = true;
        FacesActions.idOf(id, "requeue job");
    }

    public Long getJobId() {
        return FacesActions.idOf(id, null);
    }

    public RequeueJob getJob() {
        return reads.once("job", () -> getJobId() == null ? null : requeueJobs.find(getJobId()).orElse(null));
    }

    public int getJobPercent() {
        RequeueJob current = getJob();
        if (current == null || current.total() == 0) {
            return 100;
        }
        return (int) Math.min(100, (current.requeued() + current.skipped()) * 100 / current.total());
    }

    public String cancelJob() {
        if (FacesActions.outOfDate(drawn)) {
            return null;
        }
        FacesActions.act(() -> requeueJobs.cancel(getJobId()), "Cancel requested; the job stops after its current batch.");
        return FacesActions.reload("requeue-job");
    }

    public String filterOf(RequeueJob job) {
        return ListPages.describe(job);
    }

    public String age(Instant since) {
        return FacesActions.age(since, clocks.clock().instant());
    }

    public String getId() { return id; }
    public void setId(String id) { this.id = id; }
}
