package dev.lazarus.platform.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
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

    @Test
    void prettyTextIndentsEachLevelAndReadsBackAsTheSameValue() {
        String compact = "{\"url\":\"https://example.org/a.html\",\"tags\":[1,2.50,true,null,{}],\"q\":\"say \\\"hi\\\"\\n\",\"e\":[]}";

        String pretty = Jsonp.pretty(compact);

        assertEquals("""
                {
                  "url": "https://example.org/a.html",
                  "tags": [
                    1,
                    2.50,
                    true,
                    null,
                    {}
                  ],
                  "q": "say \\"hi\\"\\n",
                  "e": []
                }""", pretty);
        assertEquals(Jsonp.valueOf(compact), Jsonp.valueOf(pretty));
    }

    @Test
    void deepTextIsIndentedOnlyForItsFirstLevelsSoItGrowsLinearlyNotWithTheSquareOfItsDepth() {
        // the message body a review sent into a step queue: 15 KB, 995 deep; indented at every level it was 29 MB
        String body = "[".repeat(995) + "0,".repeat(3200) + "0" + "]".repeat(995);

        String pretty = Jsonp.pretty(body);

        assertTrue(pretty.length() <= 3 * body.length() + 4096, "shown in " + pretty.length() + " characters");
        assertEquals(Jsonp.valueOf(body), Jsonp.valueOf(pretty));
    }

    @Test
    void textThatIndentationWouldMakeManyTimesLongerIsShownAsItWasSent() {
        // 20 000 numbers at the 12th level: each on a line of its own behind 24 spaces would make it 13 times longer
        String wide = "{\"a\":".repeat(11) + "[" + "0,".repeat(20_000) + "0]" + "}".repeat(11);

        String shown = Jsonp.pretty(wide);

        assertTrue(wide.equals(shown), "not shown as sent: " + shown.length() + " characters for " + wide.length());
    }

    @Test
    void textThatIsNotJsonIsShownAsItIs() {
        assertEquals("not json {", Jsonp.pretty("not json {"));
        assertEquals("1 2", Jsonp.pretty("1 2"));
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
