package dev.lazarus.deadletter.entity;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.Table;
import java.io.Serializable;
import java.util.Objects;

/**
 * One dead letter a {@link BulkJob} counted when it started: the job acts on these and on nothing else, so a dead letter
 * that matches its filter later is never taken, and one closed meanwhile is skipped with its reason. Written by one
 * statement when the job is counted, deleted when it finishes.
 */
@Entity
@Table(name = "bulk_job_item")
@IdClass(BulkJobItem.Key.class)
public class BulkJobItem {

    @Id
    @Column(name = "job_id")
    private long jobId;

    @Id
    @Column(name = "dead_letter_id")
    private long deadLetterId;

    protected BulkJobItem() {
        // for JPA
    }

    public long jobId() { return jobId; }
    public long deadLetterId() { return deadLetterId; }

    /** Its identity: the job and the dead letter. */
    public static class Key implements Serializable {

        private static final long serialVersionUID = 1L;

        private long jobId;
        private long deadLetterId;

        public Key() {
            // for JPA
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Key key && key.jobId == jobId && key.deadLetterId == deadLetterId;
        }

        @Override
        public int hashCode() {
            return Objects.hash(jobId, deadLetterId);
        }
    }
}
