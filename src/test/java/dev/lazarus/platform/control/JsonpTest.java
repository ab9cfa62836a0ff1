package dev.lazarus.platform.control;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.Json;
import jakarta.json.JsonValue;
import java.io.StringReader;
import org.junit.jupiter.api.Test;

class JsonpTest {

    private static JsonValue nested(int depth) {
        String json = "{\"a\":".repeat(depth - 1) + "{}" + "}".repeat(depth - 1);
        try (var reader = Json.createReader(new StringReader(json))) {
            return reader.readValue();
        }
    }

    @Test
    void aValueAtTheLimitIsNotTooDeepAndOneLevelMoreIs() {
        assertFalse(Jsonp.deeperThan(nested(100), 100));
        assertTrue(Jsonp.deeperThan(nested(101), 100));
        assertFalse(Jsonp.deeperThan(JsonValue.TRUE, 0));
    }

    @Test
    void theDeepestValueTheParserAcceptsIsMeasuredWithoutOverflowingTheStack() {
        // run on a small stack, as a busy request thread has little of its own left
        JsonValue deepest = nested(990);
        boolean[] deeper = new boolean[1];
        Thread small = new Thread(null, () -> deeper[0] = Jsonp.deeperThan(deepest, 100), "small-stack", 128 * 1024);
        small.start();
        assertTrue(assertJoined(small) && deeper[0]);
    }

    private static boolean assertJoined(Thread thread) {
        try {
            thread.join();
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
