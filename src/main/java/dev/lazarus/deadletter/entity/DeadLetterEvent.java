package dev.lazarus.deadletter.entity;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.FetchType;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.Objects;

/** One entry of a dead letter's audit trail. Written only by {@link DeadLetter}; never changed. */
@Entity
@Table(name = "dead_letter_event")
public class DeadLetterEvent {

    /** The longest note an audit entry keeps (its column); notes are checked against it where they enter. */
    public static final int NOTE_LENGTH = 4000;

    @Id
    @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "dead_letter_event_ids")
    @SequenceGenerator(name = "dead_letter_event_ids", sequenceName = "dead_letter_event_seq", allocationSize = 50)
    private Long id;

    @ManyToOne(fetch = FetchType.LAZY, optional = false)
    @JoinColumn(name = "dead_letter_id", nullable = false)
    private DeadLetter deadLetter;

    @Column(nullable = false)
    private Instant at;

    @Column(nullable = false, length = 100)
    private String actor;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false, length = 30)
    private DeadLetterAction action;

    @Enumerated(EnumType.STRING)
    @Column(name = "from_status", length = 30)
    private DeadLetterStatus fromStatus;

    @Enumerated(EnumType.STRING)
    @Column(name = "to_status", length = 30)
    private DeadLetterStatus toStatus;

    @Column(length = NOTE_LENGTH)
    private String note;

    /** What was changed, as JSON (a fix by hand: the payload before and after, the output supplied), or null. */
    @Column(length = 300_000)
    private String detail;

    protected DeadLetterEvent() {
        // for JPA
    }

    DeadLetterEvent(DeadLetter deadLetter, Instant at, String actor, DeadLetterAction action,
                    DeadLetterStatus fromStatus, DeadLetterStatus toStatus, String note) {
        this.deadLetter = Objects.requireNonNull(deadLetter, "deadLetter");
        this.at = Objects.requireNonNull(at, "at");
        this.actor = Objects.requireNonNull(actor, "actor");
        this.action = Objects.requireNonNull(action, "action");
        this.fromStatus = fromStatus;
        this.toStatus = toStatus;
        if (note != null && note.length() > NOTE_LENGTH) {
            throw new IllegalArgumentException("a note has at most " + NOTE_LENGTH + " characters, this one " + note.length());
        }
        this.note = note;
    }

    DeadLetterEvent withDetail(String changed) {
        this.detail = changed;
        return this;
    }

    void takeId(long newId) {
        if (id != null) {
            throw new IllegalStateException("audit entry " + id + " already has its id");
        }
        id = newId;
    }

    public Long id() { return id; }
    public Instant at() { return at; }
    public String actor() { return actor; }
    public DeadLetterAction action() { return action; }
    public DeadLetterStatus fromStatus() { return fromStatus; }
    public DeadLetterStatus toStatus() { return toStatus; }
    public String note() { return note; }
    public String detail() { return detail; }
}
