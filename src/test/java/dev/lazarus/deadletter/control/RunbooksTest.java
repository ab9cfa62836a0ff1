package dev.lazarus.deadletter.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.demo.control.DocumentIngestion;
import dev.lazarus.pipeline.control.PipelineDefinition;
import dev.lazarus.pipeline.control.RetryPolicy;
import dev.lazarus.pipeline.control.StepContext;
import dev.lazarus.pipeline.control.StepHandler;
import jakarta.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The runbook a dead letter shows: the reason's, then what its step or else its pipeline adds. */
class RunbooksTest {

    static class Noop implements StepHandler {
        @Override
        public JsonObject handle(StepContext context) {
            return context.payload();
        }
    }

    private static final PipelineDefinition PIPELINE = PipelineDefinition.named("p")
            .runbook("RETRIES_EXHAUSTED", "the pipeline's")
            .step("a", "q.a", Noop.class, RetryPolicy.DEFAULT)
            .stepRunbook("RETRIES_EXHAUSTED", "step a's")
            .step("b", "q.b", Noop.class, RetryPolicy.DEFAULT)
            .build();

    @Test
    void everyReasonHasAllThreeTexts() {
        for (DeadLetterReason reason : DeadLetterReason.values()) {
            Runbooks.Shown shown = Runbooks.of(reason, null);
            assertEquals(reason.description(), shown.meaning(), reason.name());
            assertFalse(shown.check().isBlank(), reason.name());
            assertFalse(shown.act().isBlank(), reason.name());
            assertNull(shown.addition());
        }
    }

    @Test
    void theStepsTextIsShownBeforeThePipelinesBelowTheReasonsOwn() {
        Runbooks.Shown ofA = Runbooks.of(DeadLetterReason.RETRIES_EXHAUSTED, PIPELINE.runbookAddition("a", "RETRIES_EXHAUSTED").orElse(null));
        assertEquals(DeadLetterReason.RETRIES_EXHAUSTED.runbook().check(), ofA.check(), "the reason's own text stays");
        assertEquals("step a's", ofA.addition().text());
        assertEquals("step", ofA.addition().scope());
        assertEquals("a", ofA.addition().step());

        Runbooks.Shown ofB = Runbooks.of(DeadLetterReason.RETRIES_EXHAUSTED, PIPELINE.runbookAddition("b", "RETRIES_EXHAUSTED").orElse(null));
        assertEquals("the pipeline's", ofB.addition().text());
        assertEquals("pipeline", ofB.addition().scope());
        assertNull(ofB.addition().step());
    }

    @Test
    void aPipelineNamingAReasonTheRegistryLacksIsRefusedAtStart() {
        PipelineDefinition typo = PipelineDefinition.named("typo").step("a", "q.t", Noop.class, RetryPolicy.DEFAULT)
                .stepRunbook("RETRIES_EXHAUSTD", "never shown").build();
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> Runbooks.check(List.of(PIPELINE, typo)));
        assertTrue(refused.getMessage().contains("RETRIES_EXHAUSTD"), refused.getMessage());
        Runbooks.check(List.of(PIPELINE, new DocumentIngestion().definition()));
    }

    @Test
    void theDemoPipelinesFetchStepPointsAtTheDocumentServiceWhenItsRetriesRunOut() {
        PipelineDefinition demo = new DocumentIngestion().definition();
        PipelineDefinition.RunbookAddition fetch = demo.runbookAddition("fetch", "RETRIES_EXHAUSTED").orElseThrow();
        assertEquals("step", fetch.scope());
        assertTrue(fetch.text().contains("document service"), fetch.text());
        assertTrue(demo.runbookAddition("parse", "RETRIES_EXHAUSTED").isEmpty());
        assertEquals("pipeline", demo.runbookAddition("index", "NON_RETRYABLE").orElseThrow().scope());
    }
}
