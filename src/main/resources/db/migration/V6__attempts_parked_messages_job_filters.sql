-- Version 6: what makes runs and dead letters agree under crashes and operator mistakes.

-- Attempts are counted by Lazarus when a delivery reaches the step, not taken from the broker's delivery
-- count: deliveries the server rolled back before the step ran (starting up, shutting down, database away)
-- spend no attempt. failures: attempts that ended with the handler failing (the rest were interrupted).
-- deliveries: the broker's delivery count last seen, kept so the two counts never drift apart silently.
alter table step_execution add column failures integer default 0 not null;
alter table step_execution add column deliveries integer default 0 not null;

-- The secret Lazarus stamps on a message it parks in a DLQ. A message retried from the Artemis console
-- brings it back, and only such a message resumes the run: a stray copy cannot.
alter table dead_letter add column parked_token varchar(36);

-- A bulk requeue keeps every part of its filter, and acts only on what existed when it was counted.
alter table requeue_job add column filter_status varchar(30);
alter table requeue_job add column filter_run_id uuid;
alter table requeue_job add column max_dead_letter_id bigint default 0 not null;
-- Dead letters a job passed over and why, e.g. "12: run is IN_PROGRESS" (the first few, for the operator).
alter table requeue_job add column skipped_detail varchar(2000);

