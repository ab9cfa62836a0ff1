package dev.lazarus.admin.boundary;

import dev.lazarus.deadletter.control.Recreations;
import dev.lazarus.pipeline.control.Payloads;
import dev.lazarus.deadletter.control.DeadLetters;
import dev.lazarus.deadletter.control.Investigations;
import dev.lazarus.deadletter.control.RequeueService;
import dev.lazarus.deadletter.control.Runbooks;
import dev.lazarus.deadletter.entity.RootCause;
import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.pipeline.control.Runs;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.StepExecution;
import dev.lazarus.pipeline.control.Pipelines;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.platform.control.Clocks;
import dev.lazarus.platform.control.Jsonp;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.io.Serializable;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * One dead letter in full: the error and stack trace, the payload, the run's step history, the audit trail,
 * where its message is in the Artemis console, and every action of the workflow.
 *
 * <p>View-scoped, so a button acts on the dead letter the page shows (its id comes from the URL, which a
 * request-scoped bean learns too late to decide which buttons a postback may press); every action then
 * reloads the page by its URL.
 */
@Named
@ViewScoped
public class DeadLetterPage implements Serializable {

    private static final long serialVersionUID = 1L;

    @Inject
    DeadLetters deadLetters;

    @Inject
    Runs runs;

    @Inject
    RequeueService requeueService;

    @Inject
    Investigations investigations;

    @Inject
    Pipelines pipelines;

    @Inject
    Runbooks runbooks;

    @Inject
    Clocks clocks;

    /** Where operators open the Artemis console (the broker's web console, as their browser reaches it). */
    @Inject
    @ConfigProperty(name = "lazarus.console.url", defaultValue = "http://127.0.0.1:8161/console")
    String consoleUrl;

    @Inject
    PageReads reads;

    /** What the form sent, for the request that acts on it (the view keeps none of it). */
    @Inject
    FormInput form;

    @Inject
    Recreations recreations;

    @Inject
    Payloads payloads;

    // the view keeps its parameter; what the page shows is read per request (PageReads), what the form sent lives for
    // its request (FormInput), so a view kept in the session holds next to nothing
    private String id;
    private boolean drawn;

    /** The Idempotency-Key of this drawing's Recreate: a second click answers the run the first started (see RunPage). */
    private final String recreateKey = "page-" + java.util.UUID.randomUUID();

    public DeadLetter getDeadLetter() {
        return reads.once("deadLetter", () -> getDeadLetterId() == null ? null : deadLetters.find(getDeadLetterId()).orElse(null));
    }

    /** Its audit trail's newest entries (a trail has no bound, its page has). */
    public DeadLetters.Trail getTrail() {
        return reads.once("trail", () -> getDeadLetterId() == null ? new DeadLetters.Trail(List.of(), 0)
                : deadLetters.trail(getDeadLetterId(), DeadLetters.TRAIL_SHOWN));
    }

    public Run getRun() {
        return reads.<Optional<Run>>once("run", () -> getDeadLetter() == null || getDeadLetter().runId() == null
                ? Optional.empty() : runs.find(getDeadLetter().runId())).orElse(null);
    }

    public List<StepExecution> getSteps() {
        return reads.once("steps", () -> getRun() == null ? List.of() : runs.steps(getRun().id()));
    }

    /** The Artemis console, where this dead letter's message can be browsed and retried. */
    public String getConsoleLink() {
        return consoleUrl + "/artemis"; // the console keeps no URL per queue or message: the page says where to look
    }

    /** Its runbook: what its reason means, what to check, what to do, and what its pipeline or step adds. */
    public Runbooks.Shown getRunbook() {
        return reads.once("runbook", () -> getDeadLetter() == null ? null
                : runbooks.of(getDeadLetter().reason(), getDeadLetter().pipeline(), getDeadLetter().stepName()));
    }

    /** The root causes a resolve may record. */
    public RootCause[] getRootCauses() {
        return RootCause.values();
    }

    /** JSON indented for reading; anything else as it is. */
    public String pretty(String text) {
        return Jsonp.pretty(text);
    }

    public String age(Instant since) {
        return FacesActions.age(since, clocks.clock().instant());
    }

    public String requeue() {
        if (FacesActions.outOfDate(drawn)) {
            return null;
        }
        FacesActions.act(() -> requeueService.requeue(getDeadLetterId()), d -> "Requeued: the run resumes at step " + d.stepName()
                + " (" + d.requeueMethod() + ").");
        return reload();
    }

    /** Fix and continue: replace the run's payload, then requeue the step. */
    public String editAndRequeue() {
        if (FacesActions.outOfDate(drawn)) {
            return null;
        }
        FacesActions.act(() -> requeueService.fixAndContinue(getDeadLetterId(), RequeueService.Fix.EDIT_PAYLOAD, form.payload(), form.note()),
                d -> "Payload replaced and requeued: the run resumes at step " + d.stepName() + ".");
        return reload();
    }

    /** Fix and continue: finish the stopped step with the output given; the run goes on at the next step. */
    public String completeStep() {
        if (FacesActions.outOfDate(drawn)) {
            return null;
        }
        FacesActions.act(() -> requeueService.fixAndContinue(getDeadLetterId(), RequeueService.Fix.COMPLETE_STEP, form.output(), form.note()),
                d -> "Step " + d.stepName() + " completed by hand: the run goes on.");
        return reload();
    }

    /** Fix and continue: skip the stopped step (a skippable one). */
    public String skipStep() {
        if (FacesActions.outOfDate(drawn)) {
            return null;
        }
        FacesActions.act(() -> requeueService.fixAndContinue(getDeadLetterId(), RequeueService.Fix.SKIP_STEP, null, form.note()),
                d -> "Step " + d.stepName() + " skipped: the run goes on.");
        return reload();
    }

    /** Whether the stopped step may be skipped (its pipeline says so). */
    public boolean isSkippable() {
        DeadLetter d = getDeadLetter();
        return d != null && d.pipeline() != null && d.stepName() != null
                && pipelines.step(d.pipeline(), d.stepName()).map(StepDefinition::skippable).orElse(false);
    }

    /** The payload box starts with the run's current payload, indented (computed, not kept). */
    public String getFixPayload() {
        return form.payload() != null || getRun() == null ? form.payload() : Jsonp.pretty(getRun().payload());
    }

    public void setFixPayload(String fixPayload) { form.payload(fixPayload); }
    public String getFixOutput() { return form.output(); }
    public void setFixOutput(String fixOutput) { form.output(fixOutput); }

    /** Whether a new run can be recreated from it: it has a run, and that run has ended. */
    public boolean isRecreatable() {
        return getRun() != null && !getRun().state().isLive();
    }

    public String getRecreatePayload() { return RecreateForm.shown(form, getRun()); }
    public void setRecreatePayload(String payload) { form.recreatePayload(payload); }

    /** Recreate: a new run of the pipeline with the box's payload; this dead letter is resolved if it is open. */
    public String recreate() {
        if (FacesActions.outOfDate(drawn)) {
            return null;
        }
        FacesActions.act(() -> recreations.fromDeadLetter(getDeadLetterId(), getRun() == null ? null
                        : RecreateForm.edited(form, getRun(), payloads), true, recreateKey),
                r -> "Recreated as run " + r.run().id() + (r.payloadEdited() ? " with the edited payload" : " with the same payload")
                        + (r.deadLetterResolved() ? "; this dead letter is resolved." : "."));
        return reload();
    }

    public String investigate() {
        if (FacesActions.outOfDate(drawn)) {
            return null;
        }
        FacesActions.act(() -> investigations.startInvestigation(getDeadLetterId(), form.note()), "Taken into investigation.");
        return reload();
    }

    public String addNote() {
        if (FacesActions.outOfDate(drawn)) {
            return null;
        }
        FacesActions.act(() -> investigations.addNote(getDeadLetterId(), form.note()), "Note added.");
        return reload();
    }

    public String resolve() {
        if (FacesActions.outOfDate(drawn)) {
            return null;
        }
        String rootCause = form.rootCause() == null || form.rootCause().isBlank() ? null : form.rootCause();
        FacesActions.act(() -> investigations.resolve(getDeadLetterId(), form.note(), rootCause),
                rootCause == null ? "Resolved." : "Resolved; root cause " + rootCause + ".");
        return reload();
    }

    public String discard() {
        if (FacesActions.outOfDate(drawn)) {
            return null;
        }
        FacesActions.act(() -> investigations.discard(getDeadLetterId(), form.note()), "Discarded; the evidence is kept.");
        return reload();
    }

    /** After an action (done or refused) the page is fetched again. */
    private String reload() {
        return FacesActions.reload("dead-letter");
    }

    /** The page's view action: it drew this page (a button pressed on it is decoded by this bean, see FacesActions#outOfDate). */
    public void draw() {
        drawn = true;
        FacesActions.idOf(id, "dead letter");
    }

    /** The dead letter's id from the address, or null if it names none. */
    public Long getDeadLetterId() {
        return FacesActions.idOf(id, null);
    }

    public String getId() { return id; }
    public void setId(String id) { this.id = id; }
    public String getRootCause() { return form.rootCause(); }
    public void setRootCause(String rootCause) { form.rootCause(rootCause); }
    public String getNote() { return form.note(); }
    public void setNote(String note) { form.note(note); }
}
