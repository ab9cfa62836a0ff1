package dev.lazarus.deadletter.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.pipeline.entity.Run;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A run snapshot always fits its column, whatever the payload: a dead letter must never fail on size. */
class RunSnapshotTest {

    private static JsonObject parse(String json) {
        try (var reader = Json.createReader(new StringReader(json))) {
            return reader.readObject();
        }
    }

    private static Run runWith(String payload) {
        return new Run("document-ingestion", "parse", payload, Instant.parse("2026-11-22T10:00:00Z"));
    }

    @Test
    void aPayloadThatFitsIsKeptWholeAsJsonNotAsAnEscapedString() {
        JsonObject payload = Json.createObjectBuilder().add("url", "\"".repeat(30_000)).build();
        JsonObject snapshot = parse(RunSnapshots.of(runWith(payload.toString())));
        assertEquals(payload, snapshot.getJsonObject("payload"), "embedded as JSON: quotes are escaped once, not twice");
        assertFalse(snapshot.containsKey("payloadTruncated"));
    }

    @Test
    void aPayloadThatGrowsUnderEscapingBeyondTheColumnIsCutAndSaysSo() {
        // what a step may return: as large as the run's payload column, every character escaped in JSON
        String quotes = "\"".repeat(Run.MAX_PAYLOAD / 2 - 20);
        String payload = Json.createObjectBuilder().add("url", quotes).build().toString();
        String snapshot = RunSnapshots.of(runWith(payload + " ".repeat(Run.MAX_PAYLOAD - payload.length())));
        assertTrue(snapshot.length() <= DeadLetter.MAX_SNAPSHOT, "fits its column: " + snapshot.length());

        String controls = "\u0001".repeat(Run.MAX_PAYLOAD); // not JSON: kept as a string, each escaped to six characters
        String cut = RunSnapshots.of(runWith(controls));
        assertTrue(cut.length() <= DeadLetter.MAX_SNAPSHOT, "fits its column: " + cut.length());
        JsonObject parsed = parse(cut);
        assertTrue(parsed.getBoolean("payloadTruncated"));
        assertEquals(Run.MAX_PAYLOAD, parsed.getInt("payloadCharacters"));
        assertTrue(controls.startsWith(parsed.getString("payload")), "the start of the payload is kept");
    }
}
