package dev.lazarus.pipeline.control;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** A named, ordered list of steps. Build one with {@link #named(String)}. */
public final class PipelineDefinition {

    private final String name;
    private final List<StepDefinition> steps;

    private PipelineDefinition(String name, List<StepDefinition> steps) {
        this.name = name;
        this.steps = List.copyOf(steps);
    }

    public static Builder named(String name) {
        return new Builder(name);
    }

    public String name() {
        return name;
    }

    public List<StepDefinition> steps() {
        return steps;
    }

    public StepDefinition first() {
        return steps.get(0);
    }

    public Optional<StepDefinition> step(String stepName) {
        return steps.stream().filter(s -> s.name().equals(stepName)).findFirst();
    }

    /** The step after {@code stepName}, or empty when it is the last one. */
    public Optional<StepDefinition> after(String stepName) {
        for (int i = 0; i < steps.size() - 1; i++) {
            if (steps.get(i).name().equals(stepName)) {
                return Optional.of(steps.get(i + 1));
            }
        }
        return Optional.empty();
    }

    public static final class Builder {
        private final String name;
        private final List<StepDefinition> steps = new ArrayList<>();

        private Builder(String name) {
            StepDefinition.requireName(name, "pipeline name");
            this.name = name;
        }

        public Builder step(String stepName, String queue, Class<? extends StepHandler> handler, RetryPolicy policy) {
            return step(stepName, queue, handler, policy, Staleness.DEFAULTS);
        }

        public Builder step(String stepName, String queue, Class<? extends StepHandler> handler, RetryPolicy policy,
                            Staleness staleness) {
            steps.add(new StepDefinition(name, stepName, queue, handler, policy, staleness, false));
            return this;
        }

        /** The step declared last may be skipped by an operator when it is dead-lettered. */
        public Builder skippable() {
            if (steps.isEmpty()) {
                throw new IllegalStateException("skippable() follows the step it makes skippable");
            }
            StepDefinition last = steps.remove(steps.size() - 1);
            steps.add(new StepDefinition(last.pipeline(), last.name(), last.queue(), last.handler(), last.retryPolicy(), last.staleness(), true));
            return this;
        }

        public PipelineDefinition build() {
            if (steps.isEmpty()) {
                throw new IllegalStateException("pipeline " + name + " has no steps");
            }
            Set<String> names = new HashSet<>();
            Set<String> queues = new HashSet<>();
            for (StepDefinition step : steps) {
                if (!names.add(step.name())) {
                    throw new IllegalStateException("pipeline " + name + " declares step " + step.name() + " twice");
                }
                if (!queues.add(step.queue())) {
                    throw new IllegalStateException("pipeline " + name + " uses queue " + step.queue() + " twice");
                }
            }
            return new PipelineDefinition(name, steps);
        }
    }
}
