package dev.lazarus.deadletter.boundary;

import dev.lazarus.deadletter.control.DeadLetters;
import dev.lazarus.deadletter.control.RequeueService;
import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.deadletter.entity.DeadLetterStatus;
import dev.lazarus.platform.boundary.Page;
import dev.lazarus.platform.control.Problem;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.Arrays;
import java.util.UUID;

/** Dead letters over HTTP: list (newest first, filtered, paginated), one in detail, and requeue. */
@Path("dead-letters")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class DeadLettersResource {

    @Inject
    DeadLetters deadLetters;

    @Inject
    RequeueService requeueService;

    @GET
    public Page<DeadLetterView> list(@QueryParam("reason") String reason, @QueryParam("status") String status,
                                     @QueryParam("runId") String runId, @QueryParam("open") boolean openOnly,
                                     @QueryParam("offset") Integer offset, @QueryParam("limit") Integer limit) {
        DeadLetters.Filter filter = new DeadLetters.Filter(
                parse(DeadLetterReason.class, "reason", reason), parse(DeadLetterStatus.class, "status", status),
                runId == null ? null : uuid(runId), openOnly);
        int first = Page.offset(offset);
        int size = Page.limit(limit);
        return new Page<>(deadLetters.list(filter, first, size).stream().map(DeadLetterView::summary).toList(),
                deadLetters.count(filter), first, size);
    }

    @GET
    @Path("{id}")
    public DeadLetterView get(@PathParam("id") long id) {
        return deadLetters.find(id).map(DeadLetterView::detail).orElseThrow(() -> Problem.notFound("no dead letter " + id));
    }

    /** Needs the operator role (enforced by the service); the operator is the authenticated caller. */
    @POST
    @Path("{id}/requeue")
    public DeadLetterView requeue(@PathParam("id") long id) {
        return DeadLetterView.detail(requeueService.requeue(id));
    }

    static <E extends Enum<E>> E parse(Class<E> type, String name, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Enum.valueOf(type, value.trim().toUpperCase());
        } catch (IllegalArgumentException e) {
            throw Problem.badRequest(name + " must be one of " + Arrays.toString(type.getEnumConstants()) + ", was '" + value + "'");
        }
    }

    static UUID uuid(String value) {
        try {
            return UUID.fromString(value);
        } catch (IllegalArgumentException e) {
            throw Problem.badRequest("'" + value + "' is not a run id (a UUID)");
        }
    }
}
