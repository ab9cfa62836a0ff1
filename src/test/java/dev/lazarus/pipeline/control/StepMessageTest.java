package dev.lazarus.pipeline.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class StepMessageTest {

    @Test
    void roundTripsThroughJson() throws Exception {
        StepMessage message = new StepMessage(UUID.randomUUID(), "parse", 3);
        assertEquals(message, StepMessage.parse(message.toJson()));
    }

    @Test
    void idempotencyKeyNamesRunStepAndGeneration() {
        UUID run = UUID.fromString("00000000-0000-0000-0000-000000000001");
        assertEquals(run + ":index:2", new StepMessage(run, "index", 2).idempotencyKey());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "not json", "[1,2]", "{}", "{\"runId\":\"x\",\"step\":\"a\",\"generation\":1}",
            "{\"runId\":\"00000000-0000-0000-0000-000000000001\",\"step\":\"\",\"generation\":1}",
            "{\"runId\":\"00000000-0000-0000-0000-000000000001\",\"step\":\"a\",\"generation\":0}",
            "{\"runId\":\"00000000-0000-0000-0000-000000000001\",\"step\":\"a\",\"generation\":1.5}",
            "{\"runId\":\"00000000-0000-0000-0000-000000000001\",\"step\":7,\"generation\":1}"})
    void rejectsAnythingThatIsNotAStepMessage(String body) {
        assertThrows(StepMessage.MalformedStepMessage.class, () -> StepMessage.parse(body));
    }

    @Test
    void rejectsOversizedBodiesWithoutParsingThem() {
        var e = assertThrows(StepMessage.MalformedStepMessage.class, () -> StepMessage.parse("{" + " ".repeat(10_000) + "}"));
        assertTrue(e.getMessage().contains("at most"), e.getMessage());
    }
}
