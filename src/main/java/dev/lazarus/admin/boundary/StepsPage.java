package dev.lazarus.admin.boundary;

import dev.lazarus.outage.control.StepOverview;
import dev.lazarus.outage.control.StepStates;
import dev.lazarus.pipeline.control.StepControls;
import dev.lazarus.pipeline.entity.StepControlEvent;
import dev.lazarus.platform.control.Clocks;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.io.Serializable;
import java.time.Instant;
import java.util.List;

/**
 * The steps page: every step with its state (running, paused by whom and why, held by Lazarus with the cause), its
 * queue's figures, and Pause or Resume for operators. View-scoped so a button is decoded by the bean that drew its page
 * (see {@link FacesActions#outOfDate}); what it shows is read per request ({@link PageReads}). The steps are the
 * deployment's, always in the same order, so a row's button acts on the step it was drawn in.
 */
@Named
@ViewScoped
public class StepsPage implements Serializable {

    private static final long serialVersionUID = 1L;

    @Inject
    StepOverview overview;

    @Inject
    StepControls controls;

    @Inject
    StepStates states;

    @Inject
    Clocks clocks;

    @Inject
    PageReads reads;

    private static final int RECENT = 20;

    /** The note (why), for the request that acts on it (the view keeps none of it). */
    @Inject
    FormInput form;

    private boolean drawn;

    /** The page's view action: this bean drew it. */
    public void draw() {
        drawn = true;
    }

    public List<StepOverview.Step> getSteps() {
        return reads.once("steps", overview::all);
    }

    /** The newest changes of every step: who paused or resumed what and why, what Lazarus held and for what, probes. */
    public List<StepControlEvent> getRecent() {
        return reads.once("step-changes", () -> controls.recent(RECENT));
    }

    public String pause(String pipeline, String step) {
        return act(() -> controls.pause(pipeline, step, form.note()), "Step " + step + " of " + pipeline + " paused: its messages wait in"
                + " its queue, their attempts untouched, until it is resumed.");
    }

    public String resume(String pipeline, String step) {
        return act(() -> controls.resume(pipeline, step, form.note()), "Step " + step + " of " + pipeline + " runs again.");
    }

    private String act(java.util.function.Supplier<Object> change, String done) {
        if (FacesActions.outOfDate(drawn)) {
            return null;
        }
        if (FacesActions.act(change, done) != null) {
            states.refresh(); // this node obeys at once
        }
        return FacesActions.reload("steps");
    }

    public String age(Instant since) {
        return FacesActions.age(since, clocks.clock().instant());
    }

    public String getNote() { return form.note(); }
    public void setNote(String note) { form.note(note); }
}
