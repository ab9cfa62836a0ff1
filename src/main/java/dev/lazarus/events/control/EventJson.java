package dev.lazarus.events.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.events.entity.Event;
import jakarta.json.JsonObjectBuilder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.temporal.ChronoUnit;

/**
 * An event as JSON, schema {@value #SCHEMA} ({@code src/main/resources/events/lazarus-event-v1.schema.json}): the one
 * place that writes it, for the topic, the API and the webhooks alike. A field with nothing to say is left out, never
 * null. A later, incompatible shape gets a new schema name; fields may be added to v1.
 */
public final class EventJson {

    public static final String SCHEMA = "lazarus.event/v1";

    private EventJson() {
    }

    /**
     * @param links where the links start: the server's address and context root ({@code https://lazarus.example.com/lazarus})
     *              or only the context root ({@code /lazarus}, the default: relative to the server the reader knows)
     */
    public static String of(long id, Event event, String links) {
        JsonObjectBuilder json = JSON.createObjectBuilder()
                .add("schema", SCHEMA)
                .add("id", id)
                .add("type", event.type().wireName())
                .add("at", event.at().truncatedTo(ChronoUnit.MILLIS).toString());
        if (event.runId() != null) {
            json.add("runId", event.runId().toString());
        }
        put(json, "pipeline", event.pipeline());
        put(json, "step", event.step());
        put(json, "reason", event.reason());
        if (event.cause() != null && !event.cause().isEmpty()) {
            JsonObjectBuilder cause = JSON.createObjectBuilder();
            put(cause, "fingerprint", event.cause().fingerprint());
            put(cause, "exceptionClass", event.cause().exceptionClass());
            put(cause, "message", event.cause().message());
            json.add("cause", cause);
        }
        if (event.deadLetterId() != null) {
            json.add("deadLetterId", event.deadLetterId());
        }
        put(json, "who", event.who());
        JsonObjectBuilder link = JSON.createObjectBuilder();
        if (event.deadLetterId() != null) {
            link.add("deadLetter", links + "/admin/dead-letter.xhtml?id=" + event.deadLetterId());
            link.add("deadLetterApi", links + "/api/dead-letters/" + event.deadLetterId());
        }
        if (event.runId() != null) {
            link.add("run", links + "/admin/run.xhtml?id=" + event.runId());
            link.add("runApi", links + "/api/runs/" + event.runId());
        }
        if (event.runId() == null && event.pipeline() != null && event.step() != null) {
            link.add("step", links + "/admin/steps.xhtml");
            link.add("stepApi", links + "/api/steps/" + encoded(event.pipeline()) + "/" + encoded(event.step()) + "/history");
        }
        json.add("links", link);
        return json.build().toString();
    }

    private static void put(JsonObjectBuilder json, String name, String value) {
        if (value != null) {
            json.add(name, value);
        }
    }

    private static String encoded(String segment) {
        return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
