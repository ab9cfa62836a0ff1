package dev.lazarus.deadletter.boundary;

import dev.lazarus.deadletter.control.Recreations;
import dev.lazarus.pipeline.control.Payloads;
import dev.lazarus.platform.control.Problem;
import dev.lazarus.platform.entity.Text;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.io.InputStream;
import java.util.UUID;

/**
 * {@code POST /api/runs/{id}/recreate} (operator): a new run of an ended run's pipeline ({@code COMPLETED} or
 * {@code DEAD_LETTERED}), with its payload or an edited one, {@code {"payload": {...}, "resolve": true}}; see
 * {@link Recreations}. 201 with the new run's location (200 and the same run for a retry with the first request's
 * {@code Idempotency-Key}; 422 for the key used for another request); 404 for no such run, 409 for a live one, 400 for a body that is
 * not acceptable (nothing is stored).
 */
@Path("runs/{id}/recreate")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class RunRecreateResource {

    @Inject
    Recreations recreations;

    @Inject
    Payloads payloads;

    @POST
    public Response recreate(@PathParam("id") String id, InputStream body, @HeaderParam(Recreate.IDEMPOTENCY_KEY) String key,
                             @Context UriInfo uri) {
        UUID runId;
        try {
            runId = UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw Problem.notFound("no run " + Text.printable(id, 100) + " (run ids are UUIDs)");
        }
        String submissionKey = Recreate.key(key);
        Recreate.Request request = Recreate.read(body, payloads);
        return Recreate.created(recreations.fromRun(runId, request.payload(), request.resolve(), submissionKey), uri);
    }
}
