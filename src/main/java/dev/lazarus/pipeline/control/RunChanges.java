package dev.lazarus.pipeline.control;

import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.RunState;
import dev.lazarus.platform.control.AfterCommit;
import dev.lazarus.platform.control.EventLog;
import dev.lazarus.platform.control.Metrics;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.persistence.PostPersist;
import jakarta.persistence.PostUpdate;

/**
 * Reports every change of a run's place (its state, step or dispatch), whichever path made it (a submission, a
 * step, a sweep, a requeue): one line of the structured log ({@link EventLog}, event {@code RUN}) and the run
 * counters, once the change commits. A JPA entity listener, so no path can change a run without it being told.
 */
@Dependent // also called directly for runs written without Hibernate (a sweep's batch)
public class RunChanges {

    @Inject
    AfterCommit afterCommit;

    @Inject
    Metrics metrics;

    @PostPersist
    void created(Run run) {
        report(run, null);
    }

    /** A run was updated (by Hibernate, or by a batch written with SQL, which calls this itself). */
    @PostUpdate
    public void updated(Run run) {
        Run.Place before = run.reportedPlace();
        if (before == null || !before.equals(run.place())) {
            report(run, before);
        }
    }

    private static String describe(Run.Place before, Run.Place now) {
        if (before == null) {
            return "started at step " + now.step() + " (dispatch " + now.generation() + ")";
        }
        String change = before.state() == now.state() ? "" : before.state() + " -> " + now.state() + " ";
        String where = before.step().equals(now.step()) ? "at step " + now.step() : "moved on from step " + before.step() + " to " + now.step();
        return change + where + " (dispatch " + now.generation() + ")";
    }

    private void report(Run run, Run.Place before) {
        Run.Place now = run.place();
        run.placeReported();
        String pipeline = run.pipeline();
        String traceId = run.traceId();
        afterCommit.run(() -> {
            EventLog.event("RUN")
                    .with("runId", run.id())
                    .with("pipeline", pipeline)
                    .with("step", now.step())
                    .with("generation", now.generation())
                    .with("state", now.state())
                    .with("previousState", before == null ? null : before.state())
                    .with("traceId", traceId)
                    .with("previousStep", before == null || before.step().equals(now.step()) ? null : before.step())
                    .log("run " + run.id() + " " + describe(before, now));
            if (before == null) {
                metrics.runStarted(pipeline);
            } else if (now.state() != before.state() && (now.state() == RunState.COMPLETED || now.state() == RunState.DEAD_LETTERED)) {
                metrics.runFinished(pipeline, now.state().name());
            }
        });
    }
}
