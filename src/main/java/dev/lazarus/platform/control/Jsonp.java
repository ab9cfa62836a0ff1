package dev.lazarus.platform.control;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.json.JsonWriterFactory;
import jakarta.json.spi.JsonProvider;
import jakarta.json.stream.JsonGenerator;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
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
        } catch (RuntimeException notJson) {
            // JsonException, or the parser's refusal of text nested deeper than it reads (a plain RuntimeException)
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
        } catch (RuntimeException notJson) {
            // not JSON, or nested deeper than the parser reads: shown as the text it is, never a failed answer
            return JSON.createValue(text);
        }
    }

    /**
     * Whether the value nests objects and arrays deeper than {@code limit} (a scalar is 0 deep). Walks with a
     * stack of its own, not by recursion: a value the parser accepted (up to 1 000 deep) must not overflow the
     * request thread's stack here.
     */
    public static boolean deeperThan(JsonValue value, int limit) {
        Deque<Map.Entry<JsonValue, Integer>> pending = new ArrayDeque<>();
        pending.push(Map.entry(value, 0));
        while (!pending.isEmpty()) {
            Map.Entry<JsonValue, Integer> next = pending.pop();
            Collection<JsonValue> children = next.getKey() instanceof JsonObject object ? object.values()
                    : next.getKey() instanceof JsonArray array ? array : List.of();
            if (children.isEmpty() && !(next.getKey() instanceof JsonObject || next.getKey() instanceof JsonArray)) {
                continue;
            }
            int depth = next.getValue() + 1;
            if (depth > limit) {
                return true;
            }
            children.forEach(child -> pending.push(Map.entry(child, depth)));
        }
        return false;
    }

    private Jsonp() {
    }
}
