package dev.lazarus.pipeline.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** What a pipeline and its steps add to a reason's runbook, and which text a dead letter shows: the step's before the pipeline's. */
class PipelineRunbookTest {

    private static PipelineDefinition.Builder twoSteps() {
        return PipelineDefinition.named("p")
                .step("a", "q.a", PipelineDefinitionTest.Noop.class, RetryPolicy.DEFAULT)
                .step("b", "q.b", PipelineDefinitionTest.Noop.class, RetryPolicy.DEFAULT);
    }

    @Test
    void aStepsTextForTheReasonComesBeforeItsTextForEveryReasonBeforeThePipelines() {
        PipelineDefinition pipeline = PipelineDefinition.named("p")
                .runbook("RETRIES_EXHAUSTED", "pipeline, retries")
                .runbook("pipeline, any reason")
                .step("a", "q.a", PipelineDefinitionTest.Noop.class, RetryPolicy.DEFAULT)
                .stepRunbook("RETRIES_EXHAUSTED", "step a, retries")
                .stepRunbook("step a, any reason")
                .step("b", "q.b", PipelineDefinitionTest.Noop.class, RetryPolicy.DEFAULT)
                .build();

        assertEquals("step a, retries", pipeline.runbookAddition("a", "RETRIES_EXHAUSTED").orElseThrow().text());
        assertEquals("step", pipeline.runbookAddition("a", "RETRIES_EXHAUSTED").orElseThrow().scope());
        assertEquals("step a, any reason", pipeline.runbookAddition("a", "NON_RETRYABLE").orElseThrow().text());
        assertEquals("pipeline, retries", pipeline.runbookAddition("b", "RETRIES_EXHAUSTED").orElseThrow().text());
        assertEquals("pipeline", pipeline.runbookAddition("b", "RETRIES_EXHAUSTED").orElseThrow().scope());
        assertEquals("pipeline, any reason", pipeline.runbookAddition("b", "MANUAL").orElseThrow().text());
        assertEquals("pipeline, any reason", pipeline.runbookAddition(null, "MALFORMED_MESSAGE").orElseThrow().text(),
                "a dead letter of no step gets the pipeline's");
        assertEquals("pipeline, retries", pipeline.runbookAddition("no-such-step", "RETRIES_EXHAUSTED").orElseThrow().text());
        assertEquals(4, pipeline.runbookAdditions().size());
    }

    @Test
    void withoutTextsNothingIsAdded() {
        PipelineDefinition pipeline = twoSteps().stepRunbook("NON_RETRYABLE", "only b, only permanent failures").build();
        assertTrue(pipeline.runbookAddition("a", "NON_RETRYABLE").isEmpty());
        assertTrue(pipeline.runbookAddition("b", "RETRIES_EXHAUSTED").isEmpty());
        assertEquals("b", pipeline.runbookAddition("b", "NON_RETRYABLE").orElseThrow().step());
    }

    @Test
    void refusesATextWithoutAStepAMalformedReasonAnEmptyOrTooLongTextAndTwoForTheSameReason() {
        assertThrows(IllegalStateException.class, () -> PipelineDefinition.named("p").stepRunbook("RETRIES_EXHAUSTED", "x"));
        assertThrows(IllegalArgumentException.class, () -> twoSteps().runbook("retries exhausted", "x"));
        assertThrows(IllegalArgumentException.class, () -> twoSteps().runbook(null, "x"));
        assertThrows(IllegalArgumentException.class, () -> twoSteps().runbook("MANUAL", " "));
        assertThrows(IllegalArgumentException.class, () -> twoSteps().runbook("MANUAL", "x".repeat(PipelineDefinition.RUNBOOK_LENGTH + 1)));
        assertThrows(IllegalStateException.class, () -> twoSteps().stepRunbook("MANUAL", "x").stepRunbook("MANUAL", "y"));
        assertThrows(IllegalStateException.class, () -> twoSteps().runbook("x").runbook("y"));
    }
}
