package dev.lazarus.cli;

import jakarta.json.JsonArray;
import jakarta.json.JsonException;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import java.io.StringReader;
import java.util.List;

/** Reading the API's answers for the tables: tolerant of a field that is absent or null (shown as {@code -}). */
public final class Json {

    static final JsonProvider JSON = JsonProvider.provider();

    private Json() {
    }

    /** The answer as JSON; an answer that is not is the server's failure (exit 5), not the user's. */
    public static JsonValue parse(String body) {
        JsonValue value = parseOrNull(body);
        if (value == null) {
            throw new Failure(Exit.SERVER, "the server's answer is not JSON: " + Cells.oneLine(body, 200));
        }
        return value;
    }

    static JsonValue parseOrNull(String body) {
        if (body == null || body.isBlank()) {
            return null;
        }
        try (JsonReader reader = JSON.createReader(new StringReader(body))) {
            return reader.readValue();
        } catch (JsonException | IllegalStateException notJson) {
            return null;
        }
    }

    public static JsonObject object(String body) {
        if (parse(body) instanceof JsonObject object) {
            return object;
        }
        throw new Failure(Exit.SERVER, "the server's answer is not a JSON object: " + Cells.oneLine(body, 200));
    }

    /**
     * The list an answer holds: the answer itself if it is an array, else the first of {@code names} that is an array
     * in it ({@code items} of a page, {@code steps}, ...); empty if none.
     */
    public static List<JsonObject> items(JsonValue answer, String... names) {
        JsonArray array = null;
        if (answer instanceof JsonArray bare) {
            array = bare;
        } else if (answer instanceof JsonObject object) {
            for (String name : names) {
                if (object.get(name) instanceof JsonArray found) {
                    array = found;
                    break;
                }
            }
        }
        return array == null ? List.of() : array.stream().filter(JsonObject.class::isInstance).map(JsonObject.class::cast).toList();
    }

    /** A field as text: a string as it is, a number or boolean as written, an object or array as JSON; null if absent. */
    public static String text(JsonObject object, String name) {
        JsonValue value = object == null ? null : object.get(name);
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return null;
        }
        return value instanceof JsonString string ? string.getString() : value.toString();
    }

    /** An instant field to the second ({@code 2026-11-22T06:00:00Z}): fractions of a second only widen a table. */
    public static String time(JsonObject object, String name) {
        String text = text(object, name);
        if (text == null) {
            return null;
        }
        int dot = text.indexOf('.');
        return dot > 0 && text.endsWith("Z") ? text.substring(0, dot) + "Z" : text;
    }

    public static JsonObject objectOrNull(JsonObject object, String name) {
        return object != null && object.get(name) instanceof JsonObject found ? found : null;
    }

    public static long number(JsonObject object, String name, long otherwise) {
        return object != null && object.get(name) instanceof JsonNumber number ? number.longValue() : otherwise;
    }

    /** A string as a JSON string literal, for the request bodies the commands build. */
    public static String quote(String text) {
        return JSON.createValue(text).toString();
    }
}
