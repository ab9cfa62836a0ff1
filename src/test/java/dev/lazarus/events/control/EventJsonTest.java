package dev.lazarus.events.control;

import static dev.lazarus.platform.control.Jsonp.JSON;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.events.entity.Event;
import dev.lazarus.events.entity.EventType;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.InputStream;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Each type's JSON holds what the published schema ({@code events/lazarus-event-v1.schema.json}) requires of it, and nothing it does not know. */
class EventJsonTest {

    private static final JsonObject SCHEMA = schema();

    @ParameterizedTest
    @EnumSource(EventType.class)
    void eachTypesJsonHasTheFieldsTheSchemaRequires(EventType type) {
        JsonObject json = JSON.createReader(new java.io.StringReader(EventJson.of(42, example(type), "/lazarus"))).readObject();

        Set<String> required = new HashSet<>(strings(SCHEMA.getJsonArray("required")));
        for (JsonValue rule : SCHEMA.getJsonArray("allOf")) {
            JsonObject condition = rule.asJsonObject();
            if (strings(condition.getJsonObject("if").getJsonObject("properties").getJsonObject("type").getJsonArray("enum"))
                    .contains(type.wireName())) {
                required.addAll(strings(condition.getJsonObject("then").getJsonArray("required")));
                if (condition.getJsonObject("then").containsKey("not")) {
                    assertFalse(json.containsKey("runId") || json.containsKey("deadLetterId"), type + " names no run: " + json);
                }
            }
        }
        required.forEach(field -> assertTrue(json.containsKey(field), type + " lacks " + field + ": " + json));
        Set<String> known = SCHEMA.getJsonObject("properties").keySet();
        json.keySet().forEach(field -> assertTrue(known.contains(field), field + " is not in the schema"));
        json.getJsonObject("links").keySet().forEach(link -> assertTrue(
                SCHEMA.getJsonObject("properties").getJsonObject("links").getJsonObject("properties").containsKey(link), link));
        assertEquals("lazarus.event/v1", json.getString("schema"));
        assertEquals(42, json.getInt("id"));
        assertTrue(strings(SCHEMA.getJsonObject("properties").getJsonObject("type").getJsonArray("enum")).contains(json.getString("type")));
        json.values().forEach(value -> assertFalse(value == JsonValue.NULL, "no field is null: " + json));
    }

    @Test
    void aLongErrorMessageIsBounded() {
        Event event = new Event(EventType.DEAD_LETTERED, Instant.now(), UUID.randomUUID(), "p", "s", "RETRIES_EXHAUSTED",
                new Event.Cause("abc", "java.io.IOException", "x".repeat(10_000)), 7L, "consumer");
        JsonObject json = JSON.createReader(new java.io.StringReader(EventJson.of(1, event, "/lazarus"))).readObject();
        assertTrue(json.getJsonObject("cause").getString("message").length() <= Event.MESSAGE_LENGTH);
    }

    private static Event example(EventType type) {
        boolean ofAStep = type == EventType.HELD || type == EventType.RESUMED;
        Event.Cause cause = type == EventType.RESUMED ? null : new Event.Cause("0123456789abcdef", "java.net.ConnectException", "refused");
        return ofAStep
                ? new Event(type, Instant.now(), null, "document-ingestion", "fetch", "failures crossed the threshold", cause, null, "lazarus")
                : new Event(type, Instant.now(), UUID.randomUUID(), "document-ingestion", "fetch", "RETRIES_EXHAUSTED", cause, 17L, "alice");
    }

    private static Set<String> strings(jakarta.json.JsonArray array) {
        Set<String> names = new HashSet<>();
        array.forEach(value -> names.add(((jakarta.json.JsonString) value).getString()));
        return names;
    }

    private static JsonObject schema() {
        try (InputStream in = EventJsonTest.class.getResourceAsStream("/events/lazarus-event-v1.schema.json")) {
            return JSON.createReader(in).readObject();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
