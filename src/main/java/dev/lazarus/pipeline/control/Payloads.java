package dev.lazarus.pipeline.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.platform.control.Jsonp;
import dev.lazarus.platform.control.Problem;
import dev.lazarus.platform.entity.Text;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The one rule for what may become a run's payload, applied wherever one enters: a submission (single or in a batch),
 * an operator's edited payload, a step's output an operator supplies, and what a step's handler returns.
 * <ul>
 * <li>a JSON object;</li>
 * <li>nested at most {@value #MAX_DEPTH} levels: a payload is shown a few levels down inside other JSON (the run's
 * view, a dead letter's snapshot, an audit entry's before and after) and the parser refuses anything deeper than 1 000,
 * so a payload deeper than this could be stored but never read again;</li>
 * <li>from a client or an operator, at most {@code lazarus.run.max-payload-bytes} (64 KiB) of compact UTF-8: what a
 * request may bring; from a handler, at most {@link Run#MAX_PAYLOAD} characters, what the column holds (a step may
 * enrich its input).</li>
 * </ul>
 * A refusal names the field, what was wrong and the limit: 400 for the shape, 413 for the size.
 */
@ApplicationScoped
public class Payloads {

    /** How deeply a payload may nest objects and arrays. */
    public static final int MAX_DEPTH = 100;

    static final String SIZE_PROPERTY = "lazarus.run.max-payload-bytes";

    @Inject
    @ConfigProperty(name = SIZE_PROPERTY, defaultValue = "65536")
    int maxBytes;

    /** The largest payload a client or an operator may send, in bytes of compact UTF-8. */
    public int maxBytes() {
        return maxBytes;
    }

    /**
     * How many bytes of a request a payload within the limit may take: its text may be spelt with JSON escapes, which
     * take up to six times the bytes of the UTF-8 the limit counts ({@code \u003c}, six bytes, for a {@code <} of one:
     * Gson and .NET write {@code <}, {@code >} and {@code &} so by default), so a request is refused for its size only
     * when no escaping of its payload could be within the limit.
     */
    public int requestBytes() {
        return (int) Math.min(Integer.MAX_VALUE - 8, 6L * maxBytes);
    }

    /**
     * A payload a client or an operator sends, checked.
     *
     * @param field what the request calls it ({@code runs[3].'payload'}, {@code 'output'}), for the refusal
     */
    public JsonObject accept(JsonValue value, String field) {
        if (value == null || value.getValueType() != JsonValue.ValueType.OBJECT) {
            throw Problem.badRequest(field + " must be a JSON object");
        }
        if (Jsonp.deeperThan(value, MAX_DEPTH)) {
            throw Problem.badRequest(field + " nests deeper than " + MAX_DEPTH + " levels");
        }
        if (value.toString().getBytes(StandardCharsets.UTF_8).length > maxBytes) {
            throw Problem.tooLarge(field + " is larger than " + maxBytes + " bytes (" + SIZE_PROPERTY + ")");
        }
        String broken = halfOfASurrogatePair(value);
        if (broken != null) {
            // JSON can escape one (\udc00); stored as UTF-8 it would silently become '?'
            throw Problem.badRequest(field + " holds half of a surrogate pair (not a character) in " + broken);
        }
        return value.asJsonObject();
    }

    /** Whether the value holds a lone surrogate, in a string or a name ("a string", "a name"), or null. */
    private static String halfOfASurrogatePair(JsonValue value) {
        java.util.Deque<JsonValue> pending = new java.util.ArrayDeque<>();
        pending.push(value);
        while (!pending.isEmpty()) {
            JsonValue each = pending.pop();
            if (each instanceof jakarta.json.JsonString string && broken(string.getString())) {
                return "a string";
            }
            if (each instanceof JsonObject object) {
                for (var member : object.entrySet()) {
                    if (broken(member.getKey())) {
                        return "a name";
                    }
                    pending.push(member.getValue());
                }
            } else if (each instanceof jakarta.json.JsonArray array) {
                array.forEach(pending::push);
            }
        }
        return null;
    }

    private static boolean broken(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    /** The same, from JSON text (an admin page's text box): also a 400 if it is not JSON at all. */
    public JsonObject accept(String text, String field) {
        if (text == null || text.isBlank()) {
            throw Problem.badRequest(field + " is required: a JSON object");
        }
        // (no length check before parsing: indented text, as the admin page shows a payload, is far longer than its
        // compact form; the request's own limit bounds what reaches here)
        JsonValue value;
        try (var reader = JSON.createReader(new StringReader(text))) {
            value = reader.readValue();
        } catch (RuntimeException e) {
            // JsonException, or the parser's own refusal of text nested deeper than 1 000 (a plain RuntimeException)
            throw Problem.badRequest(field + " is not acceptable JSON: " + Text.truncate(e.getMessage(), 200));
        }
        return accept(value, field);
    }

    /**
     * What a handler returned, as the text the run keeps; a {@link StepOutputRefused} (non-retryable: the same input
     * gives the same output) when the run could not keep it.
     */
    public String output(JsonObject result, String step) {
        if (Jsonp.deeperThan(result, MAX_DEPTH)) {
            throw new StepOutputRefused("step " + step + " returned JSON nested deeper than " + MAX_DEPTH
                    + " levels; a run's payload nests at most that deep");
        }
        String output = result.toString();
        if (output.length() > Run.MAX_PAYLOAD) {
            throw new StepOutputRefused("step " + step + " returned " + output.length() + " characters of JSON; a run's payload"
                    + " holds at most " + Run.MAX_PAYLOAD);
        }
        return output;
    }
}
