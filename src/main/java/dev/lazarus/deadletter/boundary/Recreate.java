package dev.lazarus.deadletter.boundary;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.deadletter.control.Recreations;
import dev.lazarus.pipeline.control.Payloads;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.platform.boundary.JsonBodies;
import dev.lazarus.platform.control.Problem;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.io.InputStream;
import java.net.URI;

/**
 * A recreate request's body, {@code {"payload": {...}, "resolve": true}} (both optional; no body at all is the same as
 * {@code {}}), checked as a submission's payload is (size, depth, an object) before anything is stored, and its answer:
 * 201 with the new run's location (200 for a retry with the first request's {@code Idempotency-Key}).
 */
final class Recreate {

    static final String SHAPE = "{\"payload\": {...}, \"resolve\": true} (both optional)";

    /** What the request asks: the edited payload (null: the old run's), and whether to resolve the dead letter. */
    record Request(JsonObject payload, boolean resolve) {
    }

    private Recreate() {
    }

    /** The header a client names a request with, so that its retry starts nothing new: as {@code POST /api/runs} takes it. */
    static final String IDEMPOTENCY_KEY = "Idempotency-Key";

    /** The key as a submission's: 1 to {@value Run#SUBMISSION_KEY_LENGTH} visible ASCII characters (400 otherwise). */
    static String key(String key) {
        if (key != null && (key.isEmpty() || key.length() > Run.SUBMISSION_KEY_LENGTH
                || !key.chars().allMatch(c -> c >= 0x21 && c <= 0x7e))) {
            throw Problem.badRequest(IDEMPOTENCY_KEY + " must be 1 to " + Run.SUBMISSION_KEY_LENGTH
                    + " visible ASCII characters (a UUID is a good choice)");
        }
        return key;
    }

    static Request read(InputStream body, Payloads payloads) {
        JsonObject request = JsonBodies.readOptionalObject(body, payloads.requestBytes(), SHAPE);
        JsonBodies.requireOnly(request, "payload", "resolve");
        JsonValue payload = request.get("payload");
        JsonObject edited = payload == null || payload.getValueType() == JsonValue.ValueType.NULL ? null
                : payloads.accept(payload, "'payload'");
        JsonValue resolve = request.get("resolve");
        if (resolve != null && resolve != JsonValue.TRUE && resolve != JsonValue.FALSE) {
            throw Problem.badRequest("'resolve' must be true or false: " + SHAPE);
        }
        return new Request(edited, resolve != JsonValue.FALSE);
    }

    static Response created(Recreations.Recreated recreated, UriInfo uri) {
        URI location = uri.getBaseUriBuilder().path("runs").path(recreated.run().id().toString()).build();
        JsonObjectBuilder answer = JSON.createObjectBuilder()
                .add("id", recreated.run().id().toString())
                .add("pipeline", recreated.run().pipeline())
                .add("state", recreated.run().state().name())
                .add("currentStep", recreated.run().currentStep())
                .add("recreatedFrom", recreated.recreatedFrom().toString())
                .add("payloadEdited", recreated.payloadEdited())
                .add("deadLetterResolved", recreated.deadLetterResolved());
        if (recreated.deadLetterId() != null) {
            answer.add("deadLetterId", recreated.deadLetterId());
        } else {
            answer.addNull("deadLetterId");
        }
        if (!recreated.created()) { // a retry with the first request's Idempotency-Key: its run, as a submission's retry answers
            return Response.ok(answer.build()).location(location).header("Idempotency-Replayed", "true").build();
        }
        return Response.created(location).entity(answer.build()).build();
    }
}
