package dev.lazarus.platform.boundary;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.platform.control.Problem;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;

/**
 * Reads request bodies the API accepts, so that every endpoint refuses bad input the same way: too large
 * (413), empty, not JSON or not an object (400), each with a problem that says which.
 */
public final class JsonBodies {

    private JsonBodies() {
    }

    public static JsonObject readObject(InputStream body, int limit, String expected) {
        return readObject(body, limit, expected, "the request is larger than " + limit + " bytes");
    }

    /** Reads at most {@code limit} bytes: an oversized body is refused without being held whole. */
    public static JsonObject readObject(InputStream body, int limit, String expected, String tooLarge) {
        byte[] bytes;
        try {
            bytes = body == null ? new byte[0] : body.readNBytes(limit + 1);
        } catch (IOException e) {
            throw Problem.badRequest("the request body could not be read: " + e.getMessage());
        }
        if (bytes.length > limit) {
            throw Problem.tooLarge(tooLarge);
        }
        if (bytes.length == 0) {
            throw Problem.badRequest("the request body is empty; expected " + expected);
        }
        try (var reader = JSON.createReader(new StringReader(new String(bytes, StandardCharsets.UTF_8)))) {
            JsonValue value = reader.readValue();
            if (value.getValueType() != JsonValue.ValueType.OBJECT) {
                throw Problem.badRequest("the request body must be a JSON object: " + expected);
            }
            return value.asJsonObject();
        } catch (JsonException e) {
            throw Problem.badRequest("the request body is not valid JSON: " + e.getMessage());
        }
    }

    /** Like {@link #readObject(InputStream, int, String)}, but an empty body is an empty object. */
    public static JsonObject readOptionalObject(InputStream body, int limit, String expected) {
        byte[] bytes;
        try {
            bytes = body == null ? new byte[0] : body.readNBytes(limit + 1);
        } catch (IOException e) {
            throw Problem.badRequest("the request body could not be read: " + e.getMessage());
        }
        return bytes.length == 0 ? JsonValue.EMPTY_JSON_OBJECT : readObject(new ByteArrayInputStream(bytes), limit, expected);
    }

    /** An optional string field; a present field of another type is refused. */
    public static String optionalString(JsonObject object, String field) {
        JsonValue value = object.get(field);
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return null;
        }
        if (!(value instanceof JsonString string)) {
            throw Problem.badRequest("'" + field + "' must be a string");
        }
        return string.getString();
    }
}
