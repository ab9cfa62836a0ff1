package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetterReason;
import dev.lazarus.deadletter.entity.Runbook;
import dev.lazarus.pipeline.control.PipelineDefinition;
import dev.lazarus.pipeline.control.PipelineDefinition.RunbookAddition;
import dev.lazarus.pipeline.control.Pipelines;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The runbook a dead letter shows: its reason's (from the registry, {@link DeadLetterReason#runbook()}) and below it the
 * words its pipeline or step adds ({@link PipelineDefinition#runbookAddition}: the step's before the pipeline's). A
 * pipeline that names a reason the registry does not have fails the deployment, as a queue used twice does: a runbook
 * that would never show is a mistake to hear of at once.
 */
@ApplicationScoped
public class Runbooks {

    @Inject
    Pipelines pipelines;

    void checkAtStart(@Observes @Initialized(ApplicationScoped.class) Object started) {
        check(pipelines.all());
    }

    /** Refuses pipelines whose runbook texts name a reason the registry does not have. */
    static void check(Collection<PipelineDefinition> definitions) {
        Set<String> known = Arrays.stream(DeadLetterReason.values()).map(Enum::name).collect(Collectors.toSet());
        for (PipelineDefinition definition : definitions) {
            for (RunbookAddition addition : definition.runbookAdditions()) {
                if (!addition.everyReason() && !known.contains(addition.reason())) {
                    throw new IllegalStateException("pipeline " + definition.name() + (addition.step() == null ? "" : " step "
                            + addition.step()) + " has a runbook for " + addition.reason() + ", which is no reason; the reasons are "
                            + known.stream().sorted().toList());
                }
            }
        }
    }

    /** The runbook of a dead letter of {@code reason} at {@code pipeline}/{@code step} (either may be null or unknown). */
    public Shown of(DeadLetterReason reason, String pipeline, String step) {
        return of(reason, pipelines.find(pipeline).flatMap(p -> p.runbookAddition(step, reason.name())).orElse(null));
    }

    static Shown of(DeadLetterReason reason, RunbookAddition addition) {
        Runbook runbook = reason.runbook();
        return new Shown(reason.name(), runbook.meaning(), runbook.check(), runbook.act(),
                addition == null ? null : new Addition(addition.scope(), addition.pipeline(), addition.step(), addition.text()));
    }

    /** Every text the deployment's pipelines and steps add to the runbook of {@code reason} (for one reason or for all). */
    public List<Addition> additionsFor(DeadLetterReason reason) {
        List<Addition> found = new ArrayList<>();
        for (PipelineDefinition definition : pipelines.all()) {
            for (RunbookAddition addition : definition.runbookAdditions()) {
                if (addition.everyReason() || reason.name().equals(addition.reason())) {
                    found.add(new Addition(addition.scope(), addition.pipeline(), addition.step(), addition.text()));
                }
            }
        }
        found.sort(java.util.Comparator.comparing(Addition::pipeline).thenComparing(a -> a.step() == null ? "" : a.step()));
        return found;
    }

    /**
     * A runbook as the API and the pages show it: the reason's {@code meaning}, what to {@code check}, what to do
     * ({@code act}), and the pipeline's or step's {@code addition}, if it has one.
     */
    public record Shown(String reason, String meaning, String check, String act, Addition addition) {
    }

    /** Words a pipeline or step adds: {@code scope} is {@code "step"} or {@code "pipeline"}; {@code step} null for a pipeline's. */
    public record Addition(String scope, String pipeline, String step, String text) {
    }
}
