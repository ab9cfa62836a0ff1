package dev.lazarus.pipeline.entity;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.util.UUID;

/**
 * What a run is found by (table {@code run_search}, V23): its {@link RunTags} and the payload it was submitted with,
 * as {@code jsonb}. Written once, by one SQL statement per submission ({@code RunSearches}), and read by searches;
 * never changed, so no step pays for its indexes.
 *
 * <p>Mapped for JPQL only: a search names its columns in a subquery, the payload and labels through the functions V23
 * declares. {@code labels} is PostgreSQL's text of the array ({@link RunTags#fromArrayText}); the payload is never read
 * through it.
 */
@Entity
@Table(name = "run_search")
public class RunMarks {

    @Id
    @Column(name = "run_id", insertable = false, updatable = false)
    private UUID runId;

    @Column(insertable = false, updatable = false)
    private String pipeline;

    @Column(name = "business_key", insertable = false, updatable = false)
    private String businessKey;

    @Column(name = "unique_key", insertable = false, updatable = false)
    private boolean uniqueKey;

    @Column(insertable = false, updatable = false)
    private String labels;

    @Column(insertable = false, updatable = false)
    private String payload;

    protected RunMarks() {
        // for JPA
    }

    public UUID runId() { return runId; }
    public String pipeline() { return pipeline; }

    public RunTags tags() {
        return new RunTags(businessKey, RunTags.fromArrayText(labels), uniqueKey);
    }
}
