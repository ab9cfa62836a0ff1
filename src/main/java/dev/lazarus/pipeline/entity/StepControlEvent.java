package dev.lazarus.pipeline.entity;

import dev.lazarus.platform.entity.Text;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.Objects;

/** One change of a step's state (or a probe of it): when, who, what, why. Written only by {@link StepControl}; never changed. */
@Entity
@Table(name = "step_control_event")
public class StepControlEvent {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(nullable = false, length = Run.NAME_LENGTH)
    private String pipeline;

    @Column(name = "step_name", nullable = false, length = Run.NAME_LENGTH)
    private String stepName;

    @Column(nullable = false)
    private Instant at;

    @Column(nullable = false, length = 100)
    private String actor;

    /** PAUSED, RESUMED, HELD, PROBE_SUCCEEDED, PROBE_FAILED. */
    @Column(nullable = false, length = 20)
    private String action;

    @Enumerated(EnumType.STRING)
    @Column(name = "from_state", length = 10)
    private StepControl.State fromState;

    @Enumerated(EnumType.STRING)
    @Column(name = "to_state", length = 10)
    private StepControl.State toState;

    @Column(length = 4000)
    private String note;

    @Column(name = "cause_fingerprint", length = 16)
    private String causeFingerprint;

    @Column(length = 2000)
    private String detail;

    protected StepControlEvent() {
        // for JPA
    }

    StepControlEvent(String pipeline, String stepName, Instant at, String actor, String action, StepControl.State from,
                     StepControl.State to, String note) {
        this.pipeline = Objects.requireNonNull(pipeline, "pipeline");
        this.stepName = Objects.requireNonNull(stepName, "stepName");
        this.at = Objects.requireNonNull(at, "at");
        this.actor = Objects.requireNonNull(actor, "actor");
        this.action = Objects.requireNonNull(action, "action");
        this.fromState = from;
        this.toState = to;
        this.note = Text.truncate(note, 4000);
    }

    StepControlEvent withCause(String fingerprint) {
        this.causeFingerprint = fingerprint;
        return this;
    }

    StepControlEvent withDetail(String text) {
        this.detail = Text.truncate(text, 2000);
        return this;
    }

    public Long id() { return id; }
    public String pipeline() { return pipeline; }
    public String stepName() { return stepName; }
    public Instant at() { return at; }
    public String actor() { return actor; }
    public String action() { return action; }
    public StepControl.State fromState() { return fromState; }
    public StepControl.State toState() { return toState; }
    public String note() { return note; }
    public String causeFingerprint() { return causeFingerprint; }
    public String detail() { return detail; }
}
