package dev.lazarus.demo.entity;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * One committed execution of the demo's index step: the "write to the index" it stands for, recorded in the
 * step's own transaction. A dispatch that ran twice to completion would leave two rows with its key.
 */
@Entity
@Table(name = "demo_index_effect")
public class IndexEffect {

    @Id
    @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "demo_index_effect_ids")
    @SequenceGenerator(name = "demo_index_effect_ids", sequenceName = "demo_index_effect_seq", allocationSize = 50)
    private Long id;

    @Column(name = "idempotency_key", nullable = false, length = 200)
    private String idempotencyKey;

    @Column(name = "run_id", nullable = false)
    private UUID runId;

    @Column(name = "created_at", nullable = false)
    private Instant createdAt;

    protected IndexEffect() {
        // for JPA
    }

    public IndexEffect(String idempotencyKey, UUID runId, Instant now) {
        this.idempotencyKey = Objects.requireNonNull(idempotencyKey, "idempotencyKey");
        this.runId = Objects.requireNonNull(runId, "runId");
        this.createdAt = now;
    }
}
