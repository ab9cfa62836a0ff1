package dev.lazarus.admin.boundary;

import dev.lazarus.deadletter.control.DeadLetters;
import dev.lazarus.deadletter.control.RequeueJobs;
import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.deadletter.entity.DeadLetterFilter;
import dev.lazarus.deadletter.entity.RequeueJob;
import dev.lazarus.pipeline.control.Runs;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.RunState;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.time.Clock;
import java.time.Instant;
import java.util.List;

/** The simple lists of the admin pages: runs, the investigation queue, requeue jobs, and one job's progress. */
@Named
@RequestScoped
public class ListPages {

    static final int PAGE_SIZE = 100;

    @Inject
    Runs runs;

    @Inject
    DeadLetters deadLetters;

    @Inject
    RequeueJobs requeueJobs;

    @Inject
    Clock clock;

    private String state;
    private long jobId;
    private RequeueJob job;
    private List<Run> runList;
    private List<DeadLetter> queue;
    private List<RequeueJob> jobs;

    // each list is read once per request, however often the page refers to it

    public List<Run> getRuns() {
        if (runList == null) {
            RunState wanted = state == null || state.isBlank() ? null : RunState.valueOf(state);
            runList = runs.list(wanted, null, 0, PAGE_SIZE);
        }
        return runList;
    }

    public RunState[] getStates() {
        return RunState.values();
    }

    public List<DeadLetter> getInvestigationQueue() {
        if (queue == null) {
            queue = deadLetters.investigationQueue(DeadLetterFilter.ALL, 0, PAGE_SIZE);
        }
        return queue;
    }

    public List<RequeueJob> getJobs() {
        if (jobs == null) {
            jobs = requeueJobs.recent(PAGE_SIZE);
        }
        return jobs;
    }

    public RequeueJob getJob() {
        if (job == null) {
            job = requeueJobs.find(jobId).orElse(null);
        }
        return job;
    }

    public int getJobPercent() {
        RequeueJob current = getJob();
        if (current == null || current.total() == 0) {
            return 100;
        }
        return (int) Math.min(100, (current.requeued() + current.skipped()) * 100 / current.total());
    }

    public void cancelJob() {
        FacesActions.act(() -> requeueJobs.cancel(jobId), "Cancel requested; the job stops after its current batch.");
        job = null;
    }

    public String age(Instant since) {
        return FacesActions.age(since, clock.instant());
    }

    public String getState() { return state; }
    public void setState(String state) { this.state = state; }
    public long getJobId() { return jobId; }
    public void setJobId(long jobId) { this.jobId = jobId; }
}
