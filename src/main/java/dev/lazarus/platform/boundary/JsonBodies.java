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
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Reads request bodies the API accepts, so that every endpoint refuses bad input the same way: too large
 * (413), empty, not JSON or not an object (400), each with a problem that says which.
 */
public final class JsonBodies {

    /**
     * A note's request: a note has at most 4 000 characters, and a client may send each as a JSON escape
     * ({@code \u00e9}: six bytes); the body around it a little more.
     */
    public static final int NOTE_REQUEST_BYTES = 32 * 1024;

    private JsonBodies() {
    }

    /**
     * The note of a request whose body is {@code {"note": "..."}} or empty, as every action that takes only a note reads
     * it: the body within {@link #NOTE_REQUEST_BYTES}, no other field (who acts is never the body's to say, for
     * instance), the note a string or absent. The service it goes to checks the note itself (required, its limit).
     */
    public static String note(InputStream body) {
        JsonObject request = readOptionalObject(body, NOTE_REQUEST_BYTES, "{\"note\": \"...\"}");
        requireOnly(request, "note");
        return optionalString(request, "note");
    }

    /** Refuses a request with a field other than {@code names}: every action says which fields it takes (400). */
    public static void requireOnly(JsonObject request, String... names) {
        java.util.List<String> known = java.util.List.of(names);
        java.util.List<String> unknown = request.keySet().stream().filter(name -> !known.contains(name)).sorted().toList();
        if (!unknown.isEmpty()) {
            throw Problem.badRequest("unknown field(s) " + unknown + "; expected " + known);
        }
    }

    public static JsonObject readObject(InputStream body, int limit, String expected) {
        return readObject(body, limit, expected, "the request is larger than " + limit + " bytes");
    }

    /** Reads at most {@code limit} bytes: an oversized body is refused without being held whole. */
    public static JsonObject readObject(InputStream body, int limit, String expected, String tooLarge) {
        byte[] bytes = read(body, limit, tooLarge);
        if (bytes.length > limit) {
            throw Problem.tooLarge(tooLarge);
        }
        if (bytes.length == 0) {
            throw Problem.badRequest("the request body is empty; expected " + expected);
        }
        JsonValue value;
        try (var reader = JSON.createReader(new StringReader(utf8(bytes)))) {
            value = reader.readValue();
        } catch (JsonException e) {
            throw Problem.badRequest("the request body is not valid JSON: " + e.getMessage());
        } catch (RuntimeException e) {
            // Parsson refuses input nested deeper than its limit (1 000) with a plain RuntimeException
            throw Problem.badRequest("the request body is not acceptable JSON: " + e.getMessage());
        }
        if (value.getValueType() != JsonValue.ValueType.OBJECT) {
            throw Problem.badRequest("the request body must be a JSON object: " + expected);
        }
        return value.asJsonObject();
    }

    /** JSON text is UTF-8 (RFC 8259): bytes that are not are refused, never replaced by U+FFFD and stored. */
    private static String utf8(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw Problem.badRequest("the request body is not valid UTF-8 (JSON text must be)");
        }
    }

    /** Like {@link #readObject(InputStream, int, String)}, but an empty body is an empty object. */
    public static JsonObject readOptionalObject(InputStream body, int limit, String expected) {
        byte[] bytes = read(body, limit, "the request is larger than " + limit + " bytes");
        return bytes.length == 0 ? JsonValue.EMPTY_JSON_OBJECT : readObject(new ByteArrayInputStream(bytes), limit, expected);
    }

    /** At most {@code limit + 1} bytes of the body: one more than allowed tells an oversized body. */
    private static byte[] read(InputStream body, int limit, String tooLarge) {
        try {
            return body == null ? new byte[0] : body.readNBytes(limit + 1);
        } catch (IOException e) {
            if (e.getClass().getSimpleName().equals("RequestTooBigException")) {
                // a chunked body the server stopped reading at its own limit (lazarus.http.max-request-bytes)
                throw Problem.tooLarge(tooLarge);
            }
            throw Problem.badRequest("the request body could not be read: " + e.getMessage());
        }
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
