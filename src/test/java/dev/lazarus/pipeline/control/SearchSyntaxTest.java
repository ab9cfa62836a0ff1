package dev.lazarus.pipeline.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.pipeline.entity.RunSearch;
import java.util.List;
import org.junit.jupiter.api.Test;

class SearchSyntaxTest {

    @Test
    void aWordIsTheKeyLabelsAndPayloadTermsAddUp() {
        RunSearch search = SearchSyntax.parse("  order-42 label:vip label:region:eu payload.customer.id=42 ");
        assertEquals("order-42", search.key());
        assertEquals(List.of("vip", "region:eu"), search.labels());
        assertEquals(1, search.payload().size());
        assertEquals("customer.id", search.payload().get(0).dotted());
        assertEquals(List.of("{\"customer\":{\"id\":\"42\"}}", "{\"customer\":{\"id\":42}}"), search.payload().get(0).documents());
    }

    @Test
    void doubleQuotesHoldSpacesAndMakeAKeyOfAnything() {
        assertEquals("ORD 42", SearchSyntax.parse("\"ORD 42\"").key());
        assertEquals("label:x", SearchSyntax.parse("\"label:x\"").key(), "quoted: a key, whatever it starts with");
        RunSearch search = SearchSyntax.parse("payload.customer.name=\"Ann Lee\"");
        assertEquals(List.of("{\"customer\":{\"name\":\"Ann Lee\"}}"), search.payload().get(0).documents(), "not a number: one form");
        assertEquals("\"ORD 42\"", SearchSyntax.quote("ORD 42"));
        assertEquals("\"label:x\"", SearchSyntax.quote("label:x"));
        assertEquals("order-42", SearchSyntax.quote("order-42"));
        assertEquals("ORD 42", SearchSyntax.parse(SearchSyntax.quote("ORD 42")).key());
    }

    @Test
    void anEmptySearchIsNone() {
        assertTrue(SearchSyntax.parse(null).isEmpty());
        assertTrue(SearchSyntax.parse("   ").isEmpty());
    }

    @Test
    void badSyntaxSaysWhat() {
        for (String bad : List.of("a b", "\"open", "payload.x", "payload.=1", "payload.a..b=1", "payload.a=", "label:", "label:a'b",
                "label:semi;colon", "\"\"", "payload.a.b.c.d.e.f.g.h.i=1", "payload." + "p".repeat(201) + "=1",
                "x".repeat(SearchSyntax.MAX_LENGTH + 1), "a\u0001b")) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> SearchSyntax.parse(bad), bad);
            assertTrue(refused.getMessage().length() < 400, refused.getMessage());
        }
    }

    @Test
    void onlyPlainDecimalsAreAlsoSearchedAsNumbers() {
        assertEquals(2, RunSearch.PayloadTerm.of("a", "-12.50").documents().size());
        assertEquals(1, RunSearch.PayloadTerm.of("a", "1e5").documents().size(), "an exponent could overflow PostgreSQL's numeric");
        assertEquals(1, RunSearch.PayloadTerm.of("a", "007").documents().size(), "not a JSON number");
        assertEquals(List.of("{\"a\":\"x\\\"}\"}"), RunSearch.PayloadTerm.of("a", "x\"}").documents(), "JSON-escaped, never spliced");
    }
}
