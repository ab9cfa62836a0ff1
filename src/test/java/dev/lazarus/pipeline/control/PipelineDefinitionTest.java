package dev.lazarus.pipeline.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;

class PipelineDefinitionTest {

    static class Noop implements StepHandler {
        @Override
        public JsonObject handle(StepContext context) {
            return context.payload();
        }
    }

    private final PipelineDefinition pipeline = PipelineDefinition.named("p")
            .step("a", "q.a", Noop.class, RetryPolicy.DEFAULT)
            .step("b", "q.b", Noop.class, RetryPolicy.DEFAULT)
            .build();

    @Test
    void anInternalPipelineRefusesRunsFromOutsideWithA409AndAnOrdinaryOneTakesThem() {
        PipelineDefinition internal = PipelineDefinition.named("own").step("a", "q.own", Noop.class, RetryPolicy.DEFAULT).internal().build();
        assertTrue(!internal.acceptsExternalRuns());
        dev.lazarus.platform.control.Problem refused = assertThrows(dev.lazarus.platform.control.Problem.class,
                () -> internal.requireExternalRuns("starting a run of it"));
        assertEquals(409, refused.status());
        assertTrue(refused.getMessage().contains("pipeline 'own' is internal") && refused.getMessage().contains("starting a run of it"),
                refused.getMessage());
        assertTrue(pipeline.acceptsExternalRuns());
        pipeline.requireExternalRuns("starting a run of it");
    }

    @Test
    void stepsFollowEachOtherInDeclarationOrder() {
        assertEquals("a", pipeline.first().name());
        assertEquals("b", pipeline.after("a").orElseThrow().name());
        assertTrue(pipeline.after("b").isEmpty());
    }

    @Test
    void everyStepHasItsOwnDeadLetterQueue() {
        assertEquals("DLQ.q.b", pipeline.step("b").orElseThrow().deadLetterQueue());
    }

    @Test
    void refusesDuplicateStepsQueuesAndEmptyPipelines() {
        assertThrows(IllegalStateException.class, () -> PipelineDefinition.named("p")
                .step("a", "q.a", Noop.class, RetryPolicy.DEFAULT).step("a", "q.b", Noop.class, RetryPolicy.DEFAULT).build());
        assertThrows(IllegalStateException.class, () -> PipelineDefinition.named("p")
                .step("a", "q", Noop.class, RetryPolicy.DEFAULT).step("b", "q", Noop.class, RetryPolicy.DEFAULT).build());
        assertThrows(IllegalStateException.class, () -> PipelineDefinition.named("p").build());
    }

    @Test
    void refusesNamesThatCannotBeQueueNames() {
        assertThrows(IllegalArgumentException.class, () -> PipelineDefinition.named("p").step("a b", "q", Noop.class, RetryPolicy.DEFAULT));
        assertThrows(IllegalArgumentException.class, () -> PipelineDefinition.named("p").step("a", "q'x", Noop.class, RetryPolicy.DEFAULT));
    }

    @Test
    void registryRefusesTwoPipelinesOnOneQueue() {
        Pipelines registry = new Pipelines();
        registry.register(pipeline);
        PipelineDefinition other = PipelineDefinition.named("other").step("x", "q.a", Noop.class, RetryPolicy.DEFAULT).build();
        var e = assertThrows(IllegalStateException.class, () -> registry.register(other));
        assertTrue(e.getMessage().contains("q.a"), e.getMessage());
    }
}
