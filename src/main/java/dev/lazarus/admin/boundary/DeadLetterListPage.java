package dev.lazarus.admin.boundary;

import dev.lazarus.deadletter.boundary.Filters;
import dev.lazarus.deadletter.control.DeadLetterSummary;
import dev.lazarus.deadletter.control.DeadLetters;
import dev.lazarus.deadletter.control.BulkJobs;
import dev.lazarus.deadletter.control.RequeueService;
import dev.lazarus.deadletter.entity.BulkJob;
import dev.lazarus.deadletter.entity.DeadLetterFilter;
import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.deadletter.entity.DeadLetterStatus;
import dev.lazarus.platform.control.Problem;
import dev.lazarus.platform.control.Clocks;
import jakarta.faces.context.FacesContext;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.io.Serializable;
import java.time.Instant;
import java.util.List;
import java.util.stream.LongStream;

/**
 * The dead-letter list: filters in the URL (so a filtered view can be shared), requeue per row, and bulk requeue,
 * discard or resolve of everything the filter matches, with the dry-run counts shown (and asked about) before anything
 * happens.
 *
 * <p>View-scoped: a button press is decoded against the very list and filter the operator saw (a request-scoped
 * bean would read the list before the page's parameters are applied, and a row's button would act on another
 * row). Every action then reloads the page by its URL.
 */
@Named
@ViewScoped
public class DeadLetterListPage implements Serializable {

    private static final long serialVersionUID = 1L;

    static final int PAGE_SIZE = 100;

    @Inject
    DeadLetters deadLetters;

    @Inject
    RequeueService requeueService;

    @Inject
    BulkJobs bulkJobs;

    @Inject
    Clocks clocks;

    @Inject
    PageReads reads;

    private String reason;
    private String status;
    private String pipeline;
    private String step;
    private String from;
    private String to;
    private String error;
    private String runId;
    private String cause;
    /** The bulk form's rate and note (why, for a discard or a resolve of all), for the request that acts on them. */
    @Inject
    FormInput form;
    /**
     * What the page's dry run counted, once for the view: when, and how many each action would act on. The buttons
     * state these counts, and act on exactly these dead letters (or refuse, if some were closed meanwhile).
     */
    private DeadLetters.AsOf countedAsOf;
    private long countedRequeueable;
    private long countedCloseable;
    /**
     * The dead letters the page showed, by id: a postback (a row's Requeue) is decoded against exactly these rows, read
     * again, not against whatever the filter matches by then (newest first, a new dead letter would shift the rows).
     */
    private long[] shownIds;
    /** Of those, the ones the page offered a Requeue for (a row button is decoded only where one was drawn). */
    private long[] offeredIds;
    /** Whether this bean drew the page (see {@link FacesActions#outOfDate}). */
    private boolean drawn;

    /** The page's filter; a filter it cannot read is shown as a warning and treated as none (nothing is offered in bulk). */
    public DeadLetterFilter getFilter() {
        return reads.once("filter", () -> {
            try {
                boolean openOnly = "OPEN".equals(status); // the page's "open" choice stands for every open status
                return Filters.of(reason, openOnly ? null : status, runId, openOnly, pipeline, step, from, to, error, cause);
            } catch (Problem e) {
                FacesActions.warn("Filter ignored: " + e.getMessage());
                return null;
            }
        });
    }

    /**
     * The page's view action: reads the filter before the page is drawn (an action that returns nothing stays), and marks
     * this bean as the one that drew the page.
     */
    public void checkFilter() {
        drawn = true;
        getFilter();
    }

    /** Whether the page's filter could not be read: then nothing is offered in bulk (it would act on everything). */
    public boolean isFilterRefused() {
        return getFilter() == null;
    }

    private DeadLetterFilter filterOrAll() {
        return isFilterRefused() ? DeadLetterFilter.ALL : getFilter();
    }

    /**
     * The rows: on a postback, the rows the page showed, read again by their ids (so a button is decoded against the row
     * it was drawn in); if one of them is gone meanwhile (purged), none, so no button acts on a row that moved up.
     */
    public List<DeadLetterSummary> getItems() {
        return reads.once("items", () -> {
            if (shownIds != null && FacesContext.getCurrentInstance().isPostback()) {
                List<DeadLetterSummary> shown = deadLetters.summaries(LongStream.of(shownIds).boxed().toList());
                if (shown.size() != shownIds.length) {
                    FacesActions.warn("The list changed under the page (a dead letter it showed is gone), so nothing was done.");
                    return List.of();
                }
                return shown;
            }
            List<DeadLetterSummary> items = deadLetters.list(filterOrAll(), 0, PAGE_SIZE);
            shownIds = items.stream().mapToLong(DeadLetterSummary::id).toArray();
            offeredIds = items.stream().filter(DeadLetterSummary::canBeRequeued).mapToLong(DeadLetterSummary::id).toArray();
            return items;
        });
    }

    /**
     * Whether the row of dead letter {@code id} has its Requeue button: whether the page offered one when it drew it. A
     * button pressed on a row that changed meanwhile (requeued by someone else) acts, and the service says why not.
     */
    public boolean offered(long id) {
        if (FacesContext.getCurrentInstance().isPostback()) {
            return offeredIds != null && LongStream.of(offeredIds).anyMatch(offered -> offered == id);
        }
        return getItems().stream().anyMatch(d -> d.id() == id && d.canBeRequeued());
    }

    public long getTotal() {
        return reads.once("total", () -> deadLetters.count(filterOrAll()));
    }

    /** The dry run: how many open dead letters of this filter a bulk requeue would bring back. */
    public long getRequeueable() {
        count();
        return countedRequeueable;
    }

    /** The dry run of a discard or a resolve: how many open dead letters of this filter (about a message on its own too). */
    public long getCloseable() {
        count();
        return countedCloseable;
    }

    /**
     * Counts once per view, not per request: a button is decoded on a postback against the counts the page showed, and
     * every action then loads the page afresh (a new view, counted again).
     */
    private void count() {
        if (countedAsOf == null) {
            DeadLetters.AsOf now = bulkJobs.now();
            countedRequeueable = bulkJobs.dryRun(BulkJob.Action.REQUEUE, filterOrAll(), now);
            countedCloseable = bulkJobs.dryRun(BulkJob.Action.DISCARD, filterOrAll(), now);
            countedAsOf = now;
        }
    }

    /** The matching dead letters grouped by cause (the filter without its own cause), largest group first. */
    public DeadLetters.Causes getCauses() {
        return reads.once("causes", () -> {
            DeadLetterFilter f = filterOrAll();
            return deadLetters.causes(new DeadLetterFilter(f.reason(), f.status(), f.runId(), f.openOnly(), f.pipeline(), f.step(),
                    f.from(), f.to(), f.errorContains(), null));
        });
    }

    /** This page with the same filter, narrowed to one cause (or widened to all with null). */
    public String causeLink(String fingerprint) {
        StringBuilder link = new StringBuilder("dead-letters.xhtml?");
        java.util.Map<String, String> query = new java.util.LinkedHashMap<>();
        query.put("reason", reason);
        query.put("status", status);
        query.put("pipeline", pipeline);
        query.put("step", step);
        query.put("from", from);
        query.put("to", to);
        query.put("error", error);
        query.put("runId", runId);
        query.put("cause", fingerprint);
        query.forEach((name, value) -> {
            if (value != null && !value.isBlank()) {
                link.append(name).append('=').append(java.net.URLEncoder.encode(value, java.nio.charset.StandardCharsets.UTF_8)).append('&');
            }
        });
        return link.substring(0, link.length() - 1);
    }

    public DeadLetterReason[] getReasons() {
        return DeadLetterReason.values();
    }

    public DeadLetterStatus[] getStatuses() {
        return DeadLetterStatus.values();
    }

    public String age(Instant since) {
        return FacesActions.age(since, clocks.clock().instant());
    }

    public String requeue(long id) {
        if (FacesActions.outOfDate(drawn)) {
            return null;
        }
        FacesActions.act(() -> requeueService.requeue(id), requeued -> "Run " + requeued.runId() + " requeued at step "
                + requeued.stepName() + " (" + requeued.requeueMethod() + ").");
        return FacesActions.reload("dead-letters");
    }

    /** Starts a bulk requeue of what the page counted; shows its progress page. */
    public String requeueAll() {
        return startAll(BulkJob.Action.REQUEUE, getRequeueable());
    }

    /** Starts a bulk discard of what the page counted, with the note; shows its progress page. */
    public String discardAll() {
        return startAll(BulkJob.Action.DISCARD, getCloseable());
    }

    /** Starts a bulk resolve of what the page counted, with the note; shows its progress page. */
    public String resolveAll() {
        return startAll(BulkJob.Action.RESOLVE, getCloseable());
    }

    /**
     * Starts a job of {@code action} for exactly the {@code counted} dead letters the page showed. Bad input (no note, a
     * rate that is none) is a message and the page stays as it was, with what was typed; a count that changed since
     * the page counted is a message and the page counts again.
     */
    private String startAll(BulkJob.Action action, long counted) {
        if (FacesActions.outOfDate(drawn)) {
            return null;
        }
        String nothing = "Nothing was " + action.done() + ": ";
        if (isFilterRefused()) {
            FacesActions.warn(nothing + "the filter could not be read.");
            return null;
        }
        Integer perSecond = ratePerSecond();
        if (perSecond == null) {
            FacesActions.warn(nothing + "the rate must be a whole number from 0 (as fast as possible) to " + BulkJobs.MAX_RATE
                    + " per second.");
            return null;
        }
        boolean[] countChanged = {false};
        // a root cause goes with a resolve only: the same form's choice is not a discard's or a requeue's
        String rootCause = action == BulkJob.Action.RESOLVE && form.rootCause() != null && !form.rootCause().isBlank() ? form.rootCause() : null;
        BulkJob job = FacesActions.act(() -> bulkJobs.startAsCounted(action, getFilter(), perSecond, action.closes() ? form.note() : null,
                        rootCause, countedAsOf, counted),
                started -> "Bulk " + action.apiName() + " started: " + started.total() + " dead letter(s).",
                refused -> countChanged[0] = refused.status() == 409);
        if (job != null) {
            return "requeue-job?faces-redirect=true&id=" + job.id();
        }
        return countChanged[0] ? FacesActions.reload("dead-letters") : null;
    }

    /** The rate field as a number, or null if it is none (the service then judges its range). */
    private Integer ratePerSecond() {
        try {
            return Integer.valueOf(getRate().strip());
        } catch (NumberFormatException notAWholeNumber) {
            return null;
        }
    }

    public String getReason() { return reason; }
    public void setReason(String reason) { this.reason = reason; }
    public String getStatus() { return status; }
    public void setStatus(String status) { this.status = status; }
    public String getPipeline() { return pipeline; }
    public void setPipeline(String pipeline) { this.pipeline = pipeline; }
    public String getStep() { return step; }
    public void setStep(String step) { this.step = step; }
    public String getFrom() { return from; }
    public void setFrom(String from) { this.from = from; }
    public String getTo() { return to; }
    public void setTo(String to) { this.to = to; }
    public String getError() { return error; }
    public void setError(String error) { this.error = error; }
    public String getRunId() { return runId; }
    public void setRunId(String runId) { this.runId = runId; }
    public String getCause() { return cause; }
    public void setCause(String cause) { this.cause = cause; }
    /** The bulk form's rate: 50 per second until the operator says otherwise. */
    public String getRate() { return form.rate() == null ? "50" : form.rate(); }
    public void setRate(String rate) { form.rate(rate); }
    public String getRootCause() { return form.rootCause(); }
    public void setRootCause(String rootCause) { form.rootCause(rootCause); }

    /** The root causes a bulk resolve may record. */
    public dev.lazarus.deadletter.entity.RootCause[] getRootCauses() {
        return dev.lazarus.deadletter.entity.RootCause.values();
    }

    public String getNote() { return form.note(); }
    public void setNote(String note) { form.note(note); }
}
