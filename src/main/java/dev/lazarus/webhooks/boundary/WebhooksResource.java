package dev.lazarus.webhooks.boundary;

import dev.lazarus.events.entity.EventType;
import dev.lazarus.platform.boundary.JsonBodies;
import dev.lazarus.platform.boundary.QueryParams;
import dev.lazarus.platform.control.Problem;
import dev.lazarus.platform.entity.Text;
import dev.lazarus.webhooks.control.Webhooks;
import dev.lazarus.webhooks.entity.Webhook;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The webhooks over HTTP: {@code GET /api/webhooks} and {@code GET /api/webhooks/{name}} (viewer);
 * {@code POST /api/webhooks} with {@code {"name", "url", "secret", "types": [...], "enabled"}},
 * {@code PUT /api/webhooks/{name}} with the same but the name (a secret left out is kept) and
 * {@code DELETE /api/webhooks/{name}} (operator). The secret is never given back: a webhook shows {@code "secret": "set"};
 * a viewer sees its URL masked ({@link Webhook#maskedUrl}).
 */
@Path("webhooks")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class WebhooksResource {

    static final int REQUEST_BYTES = 16 * 1024;
    private static final String EXPECTED = "{\"name\": \"chat\", \"url\": \"https://...\", \"secret\": \"...\", \"types\": [\"dead-lettered\"], \"enabled\": true}";

    @Inject
    Webhooks webhooks;

    @GET
    public List<View> list(@Context UriInfo uri) {
        QueryParams.onlyKnown(uri, Set.of());
        return webhooks.all().stream().map(this::view).toList();
    }

    @GET
    @Path("{name}")
    public View show(@PathParam("name") String name, @Context UriInfo uri) {
        QueryParams.onlyKnown(uri, Set.of());
        return view(webhooks.find(name).orElseThrow(() -> Problem.notFound("no webhook named " + Text.printable(name, 100))));
    }

    @POST
    public Response create(InputStream body, @Context UriInfo uri) {
        QueryParams.onlyKnown(uri, Set.of());
        JsonObject request = JsonBodies.readObject(body, REQUEST_BYTES, EXPECTED);
        JsonBodies.requireOnly(request, "name", "url", "secret", "types", "enabled");
        String name = JsonBodies.optionalString(request, "name");
        if (name == null) {
            throw Problem.badRequest("'name' is required: " + EXPECTED);
        }
        Webhook created = webhooks.create(name, change(request));
        return Response.status(Response.Status.CREATED).location(uri.getAbsolutePathBuilder().path(created.name()).build())
                .entity(view(created)).build();
    }

    @PUT
    @Path("{name}")
    public View update(@PathParam("name") String name, InputStream body, @Context UriInfo uri) {
        QueryParams.onlyKnown(uri, Set.of());
        JsonObject request = JsonBodies.readObject(body, REQUEST_BYTES, EXPECTED);
        JsonBodies.requireOnly(request, "url", "secret", "types", "enabled");
        return view(webhooks.update(name, null, change(request)));
    }

    @DELETE
    @Path("{name}")
    public Response delete(@PathParam("name") String name, @Context UriInfo uri) {
        QueryParams.onlyKnown(uri, Set.of());
        webhooks.delete(name, null);
        return Response.noContent().build();
    }

    private View view(Webhook webhook) {
        return View.of(webhook, webhooks.shownUrl(webhook));
    }

    private static Webhooks.Change change(JsonObject request) {
        String url = JsonBodies.optionalString(request, "url");
        if (url == null) {
            throw Problem.badRequest("'url' is required: an http or https URL");
        }
        String secret = JsonBodies.optionalString(request, "secret");
        JsonValue enabled = request.getOrDefault("enabled", JsonValue.TRUE);
        if (enabled != JsonValue.TRUE && enabled != JsonValue.FALSE) {
            throw Problem.badRequest("'enabled' must be true or false");
        }
        return new Webhooks.Change(url, secret, types(request.get("types")), enabled == JsonValue.TRUE);
    }

    private static Set<EventType> types(JsonValue value) {
        if (value == null || value == JsonValue.NULL) {
            return Set.of();
        }
        if (value.getValueType() != JsonValue.ValueType.ARRAY || value.asJsonArray().size() > EventType.values().length) {
            throw Problem.badRequest("'types' must be an array of event types (at most " + EventType.values().length + ")");
        }
        List<String> names = new ArrayList<>();
        for (JsonValue each : value.asJsonArray()) {
            if (!(each instanceof JsonString name)) {
                throw Problem.badRequest("'types' must be an array of strings");
            }
            names.add(name.getString());
        }
        try {
            return Webhook.types(names);
        } catch (IllegalArgumentException e) {
            throw Problem.badRequest(e.getMessage());
        }
    }

    /**
     * A webhook as the API shows it: never its secret, only whether it has one; its URL whole to an operator, to a viewer
     * only {@code scheme://host[:port]/…} (a chat service's webhook URL is itself the credential).
     */
    public record View(String name, String url, String secret, List<String> types, boolean enabled, String source, boolean readOnly,
                       Instant createdAt, Instant updatedAt, String updatedBy) {

        static View of(Webhook w, String url) {
            return new View(w.name(), url, w.hasSecret() ? "set" : null, w.typeNames(), w.enabled(),
                    w.source().name().toLowerCase(java.util.Locale.ROOT), w.fromConfiguration(), w.createdAt(), w.updatedAt(), w.updatedBy());
        }
    }
}
