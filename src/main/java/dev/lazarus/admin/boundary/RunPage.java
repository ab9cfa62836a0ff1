package dev.lazarus.admin.boundary;

import dev.lazarus.deadletter.control.Recreations;
import dev.lazarus.deadletter.control.RunHistory;
import dev.lazarus.pipeline.control.Payloads;
import dev.lazarus.pipeline.boundary.RunStops;
import dev.lazarus.pipeline.control.RetriesNow;
import dev.lazarus.pipeline.control.StepAttempts;
import dev.lazarus.platform.control.Clocks;
import dev.lazarus.platform.control.Jsonp;
import dev.lazarus.platform.control.Problem;
import jakarta.faces.view.ViewScoped;
import dev.lazarus.pipeline.control.RunSearches;
import dev.lazarus.pipeline.control.SearchSyntax;
import dev.lazarus.pipeline.entity.RunTags;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.io.Serializable;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * One run's page: its dispatches as a timeline (where each came from, attempts, how long, how it ended), its dead
 * letters, its payload and its trace, and for an operator a Stop button while the run is live. The actions on a
 * stopped run (requeue, fix, resolve) are on its dead letter's page.
 *
 * <p>View-scoped, so that Stop acts on the run the page shows (its id comes from the URL, which a request-scoped bean
 * learns too late to decide which buttons a postback may press; see {@code DeadLetterPage}). It keeps its parameter; what
 * it shows is read per request ({@link PageReads}), the note lives for its request ({@link FormInput}).
 */
@Named
@ViewScoped
public class RunPage implements Serializable {

    private static final long serialVersionUID = 1L;

    @Inject
    RunHistory runHistory;

    @Inject
    RunStops stops;

    @Inject
    StepAttempts attempts;

    @Inject
    RetriesNow retries;

    @Inject
    Recreations recreations;

    @Inject
    Payloads payloads;

    @Inject
    Clocks clocks;

    @Inject
    PageReads reads;

    @Inject
    RunSearches searches;

    /**
     * Where a trace id leads, with {@code {traceId}} in it (for example Jaeger's
     * {@code http://jaeger:16686/trace/{traceId}}); unset, the id is shown without a link.
     */
    @Inject
    @ConfigProperty(name = "lazarus.trace.url", defaultValue = " ")
    String traceUrl;

    /** The Stop form's note, for the request that acts on it (the view keeps none of it). */
    @Inject
    FormInput form;

    private String id;

    /** Whether this bean drew the page its buttons were pressed on (see {@link FacesActions#outOfDate}). */
    private boolean drawn;

    /**
     * The Idempotency-Key of this drawing's Recreate: a second click (or a resubmitted form) answers the run the first
     * started instead of starting another; the page drawn again after the action has a new one.
     */
    private final String recreateKey = "page-" + UUID.randomUUID();

    /** The page's view action: it drew this page (a button pressed on it is decoded by this bean). */
    public void draw() {
        drawn = true;
    }

    public RunHistory.History getHistory() {
        return reads.<Optional<RunHistory.History>>once("history", () -> runId().flatMap(runHistory::of)).orElse(null);
    }

    /** The run's business key and labels (none if it has none, or there is no such run). */
    public RunTags getTags() {
        return reads.once("tags", () -> runId().map(searches::tagsOf).orElse(RunTags.NONE));
    }

    /** The search for the run's key, for the search page's address (quoted if it holds a space or a quote). */
    public String getKeyQuery() {
        return java.net.URLEncoder.encode(SearchSyntax.quote(getTags().key()), java.nio.charset.StandardCharsets.UTF_8);
    }

    /** The run the page's parameter names, if it is a run id at all (a UUID). */
    private Optional<UUID> runId() {
        try {
            return id == null ? Optional.empty() : Optional.of(UUID.fromString(id.strip()));
        } catch (IllegalArgumentException notAnId) {
            return Optional.empty();
        }
    }

    /** Where the run was recreated from, and the runs recreated from it. */
    public Recreations.Links getLinks() {
        return reads.once("links", () -> runId().map(recreations::links).orElse(new Recreations.Links(null, java.util.List.of())));
    }

    /** How many attempts of a dispatch are kept. */
    public int getAttemptsKept() {
        return attempts.kept();
    }

    /** The longest dispatch, for the bars that compare them. */
    public long getLongest() {
        return getHistory() == null ? 1 : getHistory().dispatches().stream()
                .mapToLong(d -> d.tookMillis() == null ? 0 : d.tookMillis()).max().orElse(1);
    }

    /** A dispatch's bar: its share of the longest, at least a sliver so a fast one shows. */
    public long bar(Long tookMillis) {
        long longest = Math.max(1, getLongest());
        return tookMillis == null ? 0 : Math.max(1, tookMillis * 100 / longest);
    }

    public String getTraceLink() {
        String trace = getHistory() == null ? null : getHistory().run().traceId();
        return trace == null || traceUrl.isBlank() ? null : traceUrl.strip().replace("{traceId}", trace);
    }

    public String pretty(String json) {
        return Jsonp.pretty(json);
    }

    public String age(Instant since) {
        return since == null ? "" : FacesActions.age(since, clocks.clock().instant());
    }

    /** Stops the run with the note (why); the service checks both again and says why not (ended, no note). */
    public String stop() {
        FacesActions.act(() -> stops.stop(runId().orElseThrow(() -> Problem.notFound("no run " + id)), form.note()),
                deadLetter -> "Stopped: dead letter #" + deadLetter + " (MANUAL) holds the run now; requeue it from its page to"
                        + " bring the run back at the same step.");
        return FacesActions.reload("run");
    }

    /** Delivers the message of a run waiting in backoff now; the service checks again and says why not. */
    public String retryNow() {
        FacesActions.act(() -> {
            UUID run = runId().orElseThrow(() -> Problem.notFound("no run " + id));
            return retries.deliverNow(run, retries.waitingInBackoff(run));
        }, requested -> "Retry now: step " + requested.step() + "'s message is delivered now (asked " + requested.brokers() + ").");
        return FacesActions.reload("run");
    }

    public String getRecreatePayload() { return RecreateForm.shown(form, getHistory() == null ? null : getHistory().run()); }
    public void setRecreatePayload(String payload) { form.recreatePayload(payload); }

    /** Recreate: a new run of the pipeline with the box's payload (this run must have ended). */
    public String recreate() {
        if (FacesActions.outOfDate(drawn)) {
            return null;
        }
        FacesActions.act(() -> {
            UUID run = runId().orElseThrow(() -> Problem.notFound("no run " + id));
            var old = getHistory();
            return recreations.fromRun(run, old == null ? null : RecreateForm.edited(form, old.run(), payloads), true, recreateKey);
        }, r -> "Recreated as run " + r.run().id() + (r.payloadEdited() ? " with the edited payload." : " with the same payload."));
        return FacesActions.reload("run");
    }

    public String getId() { return id; }
    public void setId(String id) { this.id = id; }
    public String getNote() { return form.note(); }
    public void setNote(String note) { form.note(note); }
}
