package dev.lazarus.admin.boundary;

import dev.lazarus.deadletter.control.DeadLetters;
import dev.lazarus.deadletter.control.Investigations;
import dev.lazarus.deadletter.control.RequeueService;
import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.pipeline.control.Runs;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.StepExecution;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * One dead letter in full: the error and stack trace, the payload, the run's step history, the audit trail,
 * where its message is in the Artemis console, and every action of the workflow.
 */
@Named
@RequestScoped
public class DeadLetterPage {

    @Inject
    DeadLetters deadLetters;

    @Inject
    Runs runs;

    @Inject
    RequeueService requeueService;

    @Inject
    Investigations investigations;

    @Inject
    Clock clock;

    /** Where operators open the Artemis console (the broker's web console, as their browser reaches it). */
    @Inject
    @ConfigProperty(name = "lazarus.console.url", defaultValue = "http://127.0.0.1:8161/console")
    String consoleUrl;

    private long id;
    private String note;
    private DeadLetter deadLetter;
    private Optional<Run> run;
    private List<StepExecution> steps;

    public DeadLetter getDeadLetter() {
        if (deadLetter == null) {
            deadLetter = deadLetters.find(id).orElse(null);
        }
        return deadLetter;
    }

    public Run getRun() {
        if (run == null) {
            run = getDeadLetter() == null || getDeadLetter().runId() == null ? Optional.empty() : runs.find(getDeadLetter().runId());
        }
        return run.orElse(null);
    }

    public List<StepExecution> getSteps() {
        if (steps == null) {
            steps = getRun() == null ? List.of() : runs.steps(getRun().id());
        }
        return steps;
    }

    /** The Artemis console, where this dead letter's message can be browsed and retried. */
    public String getConsoleLink() {
        return consoleUrl + "/artemis"; // the console keeps no URL per queue or message: the page says where to look
    }

    public String age(Instant since) {
        return FacesActions.age(since, clock.instant());
    }

    public void requeue() {
        FacesActions.act(() -> requeueService.requeue(id), d -> "Requeued: the run resumes at step " + d.stepName()
                + " (" + d.requeueMethod() + ").");
        reload();
    }

    public void investigate() {
        FacesActions.act(() -> investigations.startInvestigation(id, note), "Taken into investigation.");
        reload();
    }

    public void addNote() {
        FacesActions.act(() -> investigations.addNote(id, note), "Note added.");
        reload();
    }

    public void resolve() {
        FacesActions.act(() -> investigations.resolve(id, note), "Resolved.");
        reload();
    }

    public void discard() {
        FacesActions.act(() -> investigations.discard(id, note), "Discarded; the evidence is kept.");
        reload();
    }

    private void reload() {
        deadLetter = null;
        run = null;
        steps = null;
        note = null;
    }

    public long getId() { return id; }
    public void setId(long id) { this.id = id; }
    public String getNote() { return note; }
    public void setNote(String note) { this.note = note; }
}
