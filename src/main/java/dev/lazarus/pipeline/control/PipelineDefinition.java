package dev.lazarus.pipeline.control;

import dev.lazarus.platform.control.Problem;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A named, ordered list of steps. Build one with {@link #named(String)}.
 *
 * <p>A pipeline and each of its steps may add their own runbook text to what the reason registry says about a reason
 * ({@link Builder#runbook(String, String)}, {@link Builder#stepRunbook(String, String)}): the words only the people who
 * wrote the pipeline know (which service a step calls, whom to page). {@link #runbookAddition} says which one a dead letter
 * shows.
 *
 * <p>A pipeline Lazarus runs for itself ({@link Builder#internal()}, such as the webhooks' delivery) takes no runs from
 * outside: its runs are started by Lazarus with payloads it writes, and no one may submit, recreate or edit one
 * ({@link #requireExternalRuns}).
 */
public final class PipelineDefinition {

    /** The longest runbook text a pipeline or step may add. */
    public static final int RUNBOOK_LENGTH = 2000;

    /** The key of a runbook text that applies to every reason. */
    static final String EVERY_REASON = "*";

    private final String name;
    private final List<StepDefinition> steps;
    /** Runbook texts per reason code ({@link #EVERY_REASON}: all), of the pipeline ({@code null} step) and of each step. */
    private final Map<String, Map<String, String>> runbooks;
    private final boolean internal;

    private PipelineDefinition(String name, List<StepDefinition> steps, Map<String, Map<String, String>> runbooks, boolean internal) {
        this.name = name;
        this.internal = internal;
        this.steps = List.copyOf(steps);
        Map<String, Map<String, String>> copy = new HashMap<>();
        runbooks.forEach((step, texts) -> copy.put(step, Map.copyOf(texts)));
        this.runbooks = java.util.Collections.unmodifiableMap(copy);
    }

    /** A runbook text a pipeline or a step adds, and whose it is: {@code step} (null for the pipeline's own). */
    public record RunbookAddition(String pipeline, String step, String reason, String text) {

        /** {@code "step"} or {@code "pipeline"}: where the text was declared. */
        public String scope() {
            return step == null ? "pipeline" : "step";
        }

        /** Whether it applies to every reason rather than to one. */
        public boolean everyReason() {
            return reason == null;
        }
    }

    /**
     * The text this pipeline adds to the runbook of {@code reason} (a reason code) for a dead letter at {@code stepName}
     * (null if it names no step of it), the most specific first: the step's for that reason, the step's for every reason,
     * the pipeline's for that reason, the pipeline's for every reason; empty if none.
     */
    public Optional<RunbookAddition> runbookAddition(String stepName, String reason) {
        if (stepName != null && step(stepName).isPresent()) {
            Optional<RunbookAddition> ofStep = addition(stepName, reason);
            if (ofStep.isPresent()) {
                return ofStep;
            }
        }
        return addition(null, reason);
    }

    private Optional<RunbookAddition> addition(String stepName, String reason) {
        Map<String, String> texts = runbooks.getOrDefault(stepName, Map.of());
        if (reason != null && texts.containsKey(reason)) {
            return Optional.of(new RunbookAddition(name, stepName, reason, texts.get(reason)));
        }
        return Optional.ofNullable(texts.get(EVERY_REASON)).map(text -> new RunbookAddition(name, stepName, null, text));
    }

    /** Every runbook text this pipeline and its steps add (the reasons they name: checked against the registry at start-up). */
    public List<RunbookAddition> runbookAdditions() {
        List<RunbookAddition> all = new ArrayList<>();
        runbooks.forEach((step, texts) -> texts.forEach((reason, text) ->
                all.add(new RunbookAddition(name, step, EVERY_REASON.equals(reason) ? null : reason, text))));
        return all;
    }

    public static Builder named(String name) {
        return new Builder(name);
    }

    public String name() {
        return name;
    }

    /** Whether runs of it may come from outside: submitted, recreated, their payload edited (over the API or the admin pages). */
    public boolean acceptsExternalRuns() {
        return !internal;
    }

    /**
     * The rule of an {@link Builder#internal() internal} pipeline, for every way a run or its payload comes from outside:
     * 409 saying that {@code what} (say, "submitting a run of it") is refused. A payload it did not write would be
     * processed as its own: the webhooks' delivery would sign and POST any body with a webhook's secret.
     */
    public void requireExternalRuns(String what) {
        if (internal) {
            throw Problem.conflict("pipeline '" + name + "' is internal: Lazarus starts its runs itself, with payloads it writes;"
                    + " " + what + " is refused (a dead letter of it may be requeued, discarded or resolved)");
        }
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
        private final Map<String, Map<String, String>> runbooks = new HashMap<>();
        private boolean internal;

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

        /** Lazarus alone starts runs of this pipeline and writes their payloads (see {@link PipelineDefinition#requireExternalRuns}). */
        public Builder internal() {
            this.internal = true;
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

        /**
         * Adds this pipeline's own words to the runbook of a reason, for a dead letter at any of its steps (a step's own
         * text, {@link #stepRunbook}, comes first). {@code reason} is a reason code such as {@code "RETRIES_EXHAUSTED"}
         * (the registry's; a code it does not have fails the deployment).
         */
        public Builder runbook(String reason, String text) {
            return addRunbook(null, requireReason(reason), text);
        }

        /** Adds this pipeline's own words to the runbook of every reason (a text for one reason comes first). */
        public Builder runbook(String text) {
            return addRunbook(null, EVERY_REASON, text);
        }

        /** Adds the step declared last its own words to the runbook of a reason: shown before any text of the pipeline's. */
        public Builder stepRunbook(String reason, String text) {
            return addRunbook(lastStep("stepRunbook").name(), requireReason(reason), text);
        }

        /** Adds the step declared last its own words to the runbook of every reason. */
        public Builder stepRunbook(String text) {
            return addRunbook(lastStep("stepRunbook").name(), EVERY_REASON, text);
        }

        private StepDefinition lastStep(String method) {
            if (steps.isEmpty()) {
                throw new IllegalStateException(method + "() follows the step it is about");
            }
            return steps.get(steps.size() - 1);
        }

        private static String requireReason(String reason) {
            if (reason == null || !reason.matches("[A-Z][A-Z_]{0,39}")) {
                throw new IllegalArgumentException("a runbook's reason is a reason code such as RETRIES_EXHAUSTED: " + reason);
            }
            return reason;
        }

        private Builder addRunbook(String step, String reason, String text) {
            if (text == null || text.isBlank() || text.length() > RUNBOOK_LENGTH) {
                throw new IllegalArgumentException("a runbook text has 1 to " + RUNBOOK_LENGTH + " characters");
            }
            if (runbooks.computeIfAbsent(step, s -> new HashMap<>()).putIfAbsent(reason, text.strip()) != null) {
                throw new IllegalStateException("pipeline " + name + (step == null ? "" : " step " + step) + " has two runbook texts for "
                        + (EVERY_REASON.equals(reason) ? "every reason" : reason));
            }
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
            return new PipelineDefinition(name, steps, runbooks, internal);
        }
    }
}
