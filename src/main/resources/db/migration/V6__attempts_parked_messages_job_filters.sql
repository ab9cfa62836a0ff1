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


-- Dead letters about a message on its own (a garbage message, an unknown step or run) used to take the open
-- slot of the run the message named. Where that run is not stopped by it, the slot is released: otherwise the
-- run could never be dead-lettered for a real reason. Where the run did stop because of it, the row keeps
-- holding it (and can be requeued) so that no run is left stopped without a dead letter.
update dead_letter set open_run_id = null
 where open_run_id is not null
   and reason in ('MALFORMED_MESSAGE', 'UNKNOWN_STEP', 'RUN_NOT_FOUND')
   and not exists (select 1 from run r where r.id = dead_letter.open_run_id and r.state = 'DEAD_LETTERED');
-- Failures were not counted apart before: the attempts of a step that is retrying all failed.
update step_execution set failures = attempts where state in ('RETRYING', 'FAILED');
