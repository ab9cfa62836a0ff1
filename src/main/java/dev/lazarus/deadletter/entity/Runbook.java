package dev.lazarus.deadletter.entity;

import java.util.Objects;

/**
 * What an operator on call reads about a reason: what it means, what to check, what to do. Written for Lazarus's own
 * pages, actions and metrics, and short: read at 3 a.m. Every reason of the registry has one ({@link DeadLetterReason});
 * a pipeline or a step may add its own words per reason (see {@code PipelineDefinition.Builder#runbook}).
 */
public record Runbook(String meaning, String check, String act) {

    public Runbook {
        Objects.requireNonNull(meaning, "meaning");
        Objects.requireNonNull(check, "check");
        Objects.requireNonNull(act, "act");
    }
}
