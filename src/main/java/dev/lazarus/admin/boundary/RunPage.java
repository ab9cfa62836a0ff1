package dev.lazarus.admin.boundary;

import dev.lazarus.deadletter.control.RunHistory;
import dev.lazarus.platform.control.Clocks;
import dev.lazarus.platform.control.Jsonp;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.time.Instant;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * One run's page: its dispatches as a timeline (where each came from, attempts, how long, how it ended), its dead
 * letters, its payload and its trace. Read only; the actions are on its dead letters' pages.
 */
@Named
@RequestScoped
public class RunPage {

    @Inject
    RunHistory runHistory;

    @Inject
    Clocks clocks;

    /**
     * Where a trace id leads, with {@code {traceId}} in it (for example Jaeger's
     * {@code http://jaeger:16686/trace/{traceId}}); unset, the id is shown without a link.
     */
    @Inject
    @ConfigProperty(name = "lazarus.trace.url", defaultValue = " ")
    String traceUrl;

    private String id;
    private RunHistory.History history;
    private boolean read;

    public RunHistory.History getHistory() {
        if (!read) {
            read = true;
            try {
                history = id == null ? null : runHistory.of(UUID.fromString(id.strip())).orElse(null);
            } catch (IllegalArgumentException notAnId) {
                history = null;
            }
        }
        return history;
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

    public String getId() { return id; }
    public void setId(String id) { this.id = id; }
}
