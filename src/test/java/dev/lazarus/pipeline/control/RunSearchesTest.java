package dev.lazarus.pipeline.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.pipeline.entity.RunSearch;
import dev.lazarus.pipeline.entity.RunTags;
import jakarta.json.Json;
import java.io.StringReader;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunSearchesTest {

    @Test
    void aSearchIsOneSubqueryWhoseValuesAreAllParameters() {
        Map<String, Object> parameters = new HashMap<>();
        String condition = RunSearches.condition(new RunSearch("k' or 1=1", List.of("a", "b"), List.of())
                .andPayload("customer.id", "42"), "r.id", parameters);
        assertTrue(condition.startsWith("r.id in (select m.runId from RunMarks m where "), condition);
        assertFalse(condition.contains("1=1"), "the key is a parameter: " + condition);
        assertEquals("k' or 1=1", parameters.get("searchKey"));
        assertEquals("a b", parameters.get("searchLabels"));
        assertEquals("{\"customer\":{\"id\":\"42\"}}", parameters.get("searchPayload0_0"));
        assertEquals("{\"customer\":{\"id\":42}}", parameters.get("searchPayload0_1"));
        assertNull(RunSearches.condition(RunSearch.NONE, "r.id", parameters));
    }

    @Test
    void jsonbHoldsNeitherNulNorHugeNumbers() {
        assertTrue(RunSearches.jsonbHolds(read("{\"a\":[1,2.5,{\"b\":\"text\"}]}")));
        assertFalse(RunSearches.jsonbHolds(read("{\"a\":\"x\\u0000y\"}")));
        assertFalse(RunSearches.jsonbHolds(read("{\"a\\u0000\":1}")));
        assertFalse(RunSearches.jsonbHolds(read("{\"a\":[1e400000]}")));
        assertFalse(RunSearches.jsonbHolds(read("{\"a\":1e-20000}")));
    }

    @Test
    void tagsAreCheckedAndALabelGivenTwiceIsOne() {
        assertEquals(List.of("a", "b"), new RunTags("k", List.of("a", "b", "a"), true).labels());
        for (Runnable bad : List.<Runnable>of(() -> new RunTags(null, List.of(), true), () -> new RunTags("x".repeat(201), List.of(), false),
                () -> new RunTags("a\tb", List.of(), false), () -> new RunTags("k", List.of("a b"), false),
                () -> new RunTags("k", java.util.stream.IntStream.range(0, 21).mapToObj(i -> "l" + i).toList(), false))) {
            try {
                bad.run();
                throw new AssertionError("accepted");
            } catch (IllegalArgumentException refused) {
                // as it should
            }
        }
        assertEquals(List.of("a", "NULL", "b:c"), RunTags.fromArrayText("{a,\"NULL\",b:c}"));
    }

    private static jakarta.json.JsonObject read(String json) {
        try (var reader = Json.createReader(new StringReader(json))) {
            return reader.readObject();
        }
    }
}
