package dev.lazarus.admin.boundary;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

class ViewScopeBookkeepingTest {

    @Test
    void theEntriesOfViewsTheSessionNoLongerKeepsGoAndThoseItKeepsStay() {
        Map<String, Object> kept = Collections.synchronizedMap(new LinkedHashMap<>(Map.of("view-3", Map.of(), "view-4", Map.of())));
        Map<String, Object> contexts = new ConcurrentHashMap<>(Map.of("view-1", Map.of(), "view-2", Map.of(), "view-3", Map.of(),
                "view-4", Map.of()));

        ViewScopeBookkeeping.forgetDropped(contexts, kept);

        assertEquals(Set.of("view-3", "view-4"), contexts.keySet());
        assertEquals(Set.of("view-3", "view-4"), kept.keySet(), "the views kept are not touched");
    }

    @Test
    void aViewKeptWhoseBeansAreNotMadeYetIsNoReasonToRemoveAnything() {
        Map<String, Object> kept = Collections.synchronizedMap(new LinkedHashMap<>(Map.of("view-1", Map.of(), "view-2", Map.of())));
        Map<String, Object> contexts = new ConcurrentHashMap<>(Map.of("view-1", Map.of()));

        ViewScopeBookkeeping.forgetDropped(contexts, kept);

        assertEquals(Set.of("view-1"), contexts.keySet());
    }
}
