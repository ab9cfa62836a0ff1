-- Version 16: a bulk requeue becomes a bulk job with an action: requeue (what every job before this did), discard
-- or resolve, the last two with the operator's note (the audit entry of each dead letter they close). A job keeps
-- the dead letters its count found (bulk_job_item), so it acts on exactly those: one that matches later is never
-- taken, one closed meanwhile is skipped and listed with why. That replaces the bound the job kept before (the
-- newest dead letter id when it was counted). A job's items are deleted when it finishes; a job that was running
-- when this ran has none and is marked interrupted at the next start or silent check, like any job of a stopped
-- node (start it again to finish).
alter table requeue_job rename to bulk_job;
alter table bulk_job rename constraint requeue_job_pkey to bulk_job_pkey;
alter index requeue_job_state rename to bulk_job_state;
alter table bulk_job add column action varchar(20) default 'REQUEUE' not null;
alter table bulk_job add column note varchar(4000);
alter table bulk_job rename column requeued to done;
alter table bulk_job drop column max_dead_letter_id;

create table bulk_job_item (
    job_id bigint not null references bulk_job (id),
    -- no foreign key to the dead letter: retention may purge one while a job waits to reach it (then it is skipped)
    dead_letter_id bigint not null,
    primary key (job_id, dead_letter_id)
);
