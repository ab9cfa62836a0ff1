package dev.lazarus.platform.control;

import jakarta.json.JsonException;
import jakarta.json.JsonValue;
import jakarta.json.JsonWriterFactory;
import jakarta.json.spi.JsonProvider;
import jakarta.json.stream.JsonGenerator;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.Map;

/**
 * The application's one JSON-P provider.
 *
 * <p>Why not {@code JSON.createObjectBuilder()} and friends: each of those static methods looks the provider
 * up again through the service loader, which reads the deployment's jar entries on every call. On the
 * step path (a message written and parsed per step, a payload per handler) that lookup cost more than the
 * JSON itself. Providers are thread-safe; one is enough.
 */
public final class Jsonp {

    public static final JsonProvider JSON = JsonProvider.provider();

    private static final JsonWriterFactory PRETTY =
            JSON.createWriterFactory(Map.of(JsonGenerator.PRETTY_PRINTING, true));

    /** The text indented for reading if it is JSON; as it is otherwise (a message body need not be JSON). */
    public static String pretty(String text) {
        if (text == null || text.isBlank()) {
            return text;
        }
        try (var reader = JSON.createReader(new StringReader(text))) {
            JsonValue value = reader.readValue();
            var out = new StringWriter();
            try (var writer = PRETTY.createWriter(out)) {
                writer.write(value);
            }
            return out.toString().strip();
        } catch (JsonException | IllegalStateException notJson) {
            return text;
        }
    }

    /** The text as a JSON value if it is JSON, else as a JSON string, so an API never nests JSON inside a string. */
    public static JsonValue valueOf(String text) {
        if (text == null) {
            return null;
        }
        try (var reader = JSON.createReader(new StringReader(text))) {
            return reader.readValue();
        } catch (JsonException | IllegalStateException notJson) {
            return JSON.createValue(text);
        }
    }

    private Jsonp() {
    }
}
