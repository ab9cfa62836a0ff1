package dev.lazarus.platform.control;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import jakarta.json.stream.JsonParser;
import java.io.StringReader;
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

    /** Levels indented when JSON is shown; deeper levels are written compact, on their parent's line. */
    static final int INDENTED_LEVELS = 12;
    private static final String INDENT = "  ";

    /**
     * The text indented for reading if it is JSON; as it is otherwise (a message body need not be JSON).
     *
     * <p>Indentation grows with depth, so text indented at every level grows with the square of its nesting (a
     * 15 KB array 995 deep would be 29 MB on a page): only the first {@link #INDENTED_LEVELS} levels are indented, and
     * text that would still grow to more than three times its size (plus 4 KiB) is shown as it was sent. Written
     * from the parser's events, without recursion, so no nesting the parser accepts can overflow the stack.
     */
    public static String pretty(String text) {
        if (text == null || text.isBlank()) {
            return text;
        }
        long budget = 3L * text.length() + 4096;
        StringBuilder out = new StringBuilder(Math.min(text.length() + 256, (int) Math.min(budget, Integer.MAX_VALUE - 8)));
        try (JsonParser parser = JSON.createParser(new StringReader(text))) {
            int depth = 0;
            boolean first = true; // nothing written yet in the container being written
            boolean afterKey = false;
            while (parser.hasNext()) {
                JsonParser.Event event = parser.next();
                switch (event) {
                    case END_OBJECT, END_ARRAY -> {
                        depth--;
                        if (!first) {
                            newLine(out, depth);
                        }
                        out.append(event == JsonParser.Event.END_OBJECT ? '}' : ']');
                        first = false;
                    }
                    case KEY_NAME -> {
                        separate(out, depth, first);
                        out.append(JSON.createValue(parser.getString())).append(": ");
                        first = false;
                        afterKey = true;
                    }
                    default -> {
                        if (afterKey) {
                            afterKey = false;
                        } else if (depth > 0) {
                            separate(out, depth, first);
                        }
                        first = false;
                        switch (event) {
                            case START_OBJECT -> {
                                out.append('{');
                                depth++;
                                first = true;
                            }
                            case START_ARRAY -> {
                                out.append('[');
                                depth++;
                                first = true;
                            }
                            case VALUE_STRING -> out.append(JSON.createValue(parser.getString()));
                            case VALUE_NUMBER -> out.append(parser.getString());
                            case VALUE_TRUE -> out.append("true");
                            case VALUE_FALSE -> out.append("false");
                            default -> out.append("null");
                        }
                    }
                }
                if (out.length() > budget) {
                    return text;
                }
            }
            return out.toString();
        } catch (RuntimeException notJson) {
            // JsonException, or the parser's refusal of text nested deeper than it reads (a plain RuntimeException)
            return text;
        }
    }

    private static void separate(StringBuilder out, int depth, boolean first) {
        if (!first) {
            out.append(',');
        }
        newLine(out, depth);
    }

    private static void newLine(StringBuilder out, int depth) {
        if (depth <= INDENTED_LEVELS) {
            out.append('\n');
            out.append(INDENT.repeat(depth));
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
