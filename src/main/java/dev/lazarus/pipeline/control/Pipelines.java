package dev.lazarus.pipeline.control;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Optional;

/** Every pipeline the application declares, found through CDI; checks at start-up that no queue is shared. */
@ApplicationScoped
public class Pipelines {

    @Inject
    @Any
    Instance<Pipeline> declared;

    @Inject
    @Any
    Instance<StepHandler> handlers;

    /** Each handler class's own {@link Instance}, selected once: selecting one anew for every step cost a step's CPU. */
    private final Map<Class<? extends StepHandler>, Instance<? extends StepHandler>> handlerInstances = new ConcurrentHashMap<>();

    private final Map<String, PipelineDefinition> byName = new LinkedHashMap<>();
    private final Map<String, StepDefinition> byQueue = new LinkedHashMap<>();

    @PostConstruct
    void collect() {
        for (Pipeline pipeline : declared) {
            register(pipeline.definition());
        }
    }

    void register(PipelineDefinition definition) {
        if (byName.putIfAbsent(definition.name(), definition) != null) {
            throw new IllegalStateException("two pipelines are named " + definition.name());
        }
        for (StepDefinition step : definition.steps()) {
            StepDefinition other = byQueue.putIfAbsent(step.queue(), step);
            if (other != null) {
                throw new IllegalStateException("queue " + step.queue() + " is used by " + other.pipeline() + "/"
                        + other.name() + " and by " + step.pipeline() + "/" + step.name());
            }
        }
    }

    public Collection<PipelineDefinition> all() {
        return byName.values();
    }

    public Optional<PipelineDefinition> find(String name) {
        return Optional.ofNullable(name).map(byName::get);
    }

    public Optional<StepDefinition> step(String pipeline, String step) {
        return find(pipeline).flatMap(p -> p.step(step));
    }

    public Optional<StepDefinition> stepForQueue(String queue) {
        return Optional.ofNullable(queue).map(byQueue::get);
    }

    /** The step's handler bean; close the handle when done so dependent beans are destroyed. */
    public Instance.Handle<? extends StepHandler> handlerFor(StepDefinition step) {
        return handlerInstances.computeIfAbsent(step.handler(), type -> handlers.select(type)).getHandle();
    }
}
