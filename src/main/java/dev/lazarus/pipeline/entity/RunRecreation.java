package dev.lazarus.pipeline.entity;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * A run started as a new run of another one (recreated), with the same or an edited payload: which run, from which
 * dead letter if it was recreated from one, by whom and when. The new run's row; the old run and the dead letter find
 * their recreations by index. Written once, never changed.
 */
@Entity
@Table(name = "run_recreation")
public class RunRecreation {

    /** The longest actor name kept. */
    public static final int ACTOR_LENGTH = 200;

    @Id
    @Column(name = "run_id")
    private UUID runId;

    @Column(name = "recreated_from", nullable = false)
    private UUID recreatedFrom;

    @Column(name = "dead_letter_id")
    private Long deadLetterId;

    @Column(name = "payload_edited", nullable = false)
    private boolean payloadEdited;

    @Column(name = "created_by", nullable = false, length = ACTOR_LENGTH)
    private String createdBy;

    @Column(name = "created_at", nullable = false)
    private Instant createdAt;

    protected RunRecreation() {
        // for JPA
    }

    public RunRecreation(UUID runId, UUID recreatedFrom, Long deadLetterId, boolean payloadEdited, String createdBy, Instant now) {
        this.runId = Objects.requireNonNull(runId, "runId");
        this.recreatedFrom = Objects.requireNonNull(recreatedFrom, "recreatedFrom");
        if (runId.equals(recreatedFrom)) {
            throw new IllegalArgumentException("a run is not recreated from itself");
        }
        this.deadLetterId = deadLetterId;
        this.payloadEdited = payloadEdited;
        this.createdBy = Objects.requireNonNull(createdBy, "createdBy");
        this.createdAt = Objects.requireNonNull(now, "now");
    }

    public UUID runId() { return runId; }
    public UUID recreatedFrom() { return recreatedFrom; }
    public Long deadLetterId() { return deadLetterId; }
    public boolean payloadEdited() { return payloadEdited; }
    public String createdBy() { return createdBy; }
    public Instant createdAt() { return createdAt; }
}
