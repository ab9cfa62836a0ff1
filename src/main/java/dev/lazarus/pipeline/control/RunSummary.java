package dev.lazarus.pipeline.control;

import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.RunState;
import java.time.Instant;
import java.util.UUID;

/**
 * A run as a list shows it: everything but its payload (up to 200 000 characters), read by the query itself, so a
 * list of 500 runs costs what it shows.
 */
public record RunSummary(UUID id, String pipeline, RunState state, String currentStep, long generation, int requeueCount,
                         Instant createdAt, Instant updatedAt, Instant heartbeatAt, Instant finishedAt, String traceId) {

    /** The columns, in the order of the record's components, for a JPQL constructor expression over {@code r}. */
    static final String SELECT = "select new " + RunSummary.class.getName() + "(r.id, r.pipeline, r.state, r.currentStep,"
            + " r.generation, r.requeueCount, r.createdAt, r.updatedAt, r.heartbeatAt, r.finishedAt, r.traceId) from Run r";

    public static RunSummary of(Run run) {
        return new RunSummary(run.id(), run.pipeline(), run.state(), run.currentStep(), run.generation(), run.requeueCount(),
                run.createdAt(), run.updatedAt(), run.heartbeatAt(), run.finishedAt(), run.traceId());
    }
}
