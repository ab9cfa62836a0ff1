package dev.lazarus.deadletter.boundary;

import dev.lazarus.deadletter.control.Runbooks;
import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.deadletter.entity.Runbook;
import dev.lazarus.platform.boundary.QueryParams;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * The reason registry over HTTP, {@code GET /api/reasons}: every reason code with its label, severity, triage priority and
 * runbook, and the words the deployment's pipelines and steps add to it. What an on-call operator (or the command-line
 * client) reads before touching anything.
 */
@Path("reasons")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class ReasonsResource {

    @Inject
    Runbooks runbooks;

    @GET
    public List<ReasonView> list(@Context UriInfo uri) {
        QueryParams.onlyKnown(uri, Set.of());
        return Arrays.stream(DeadLetterReason.values()).map(reason -> ReasonView.of(reason, runbooks.additionsFor(reason))).toList();
    }

    /** One reason: {@code aboutMessage} says whether its dead letters are about a message on its own (never requeued). */
    public record ReasonView(String code, String label, String severity, int priority, boolean aboutMessage, RunbookView runbook,
                             List<Runbooks.Addition> additions) {

        static ReasonView of(DeadLetterReason reason, List<Runbooks.Addition> additions) {
            Runbook runbook = reason.runbook();
            return new ReasonView(reason.name(), reason.label(), reason.severity().name(), reason.priority(), reason.aboutMessage(),
                    new RunbookView(runbook.meaning(), runbook.check(), runbook.act()), additions);
        }
    }

    public record RunbookView(String meaning, String check, String act) {
    }
}
