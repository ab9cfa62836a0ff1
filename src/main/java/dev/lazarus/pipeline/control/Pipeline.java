package dev.lazarus.pipeline.control;

/**
 * Implemented by an application's pipeline, as a CDI bean ({@code @ApplicationScoped}); Lazarus discovers
 * every one. Each step also needs a consumer for its queue: a subclass of
 * {@link dev.lazarus.pipeline.boundary.StepConsumer} annotated with that queue (see the demo pipeline).
 */
public interface Pipeline {

    PipelineDefinition definition();
}
