-- Version 22 (issue #22): every step writes its run's row anew (its state, step, payload), and PostgreSQL then adds an
-- entry for the new row to each of the run's indexes. Two of them need not take one per step:
-- the Idempotency-Key's unique index holds only the runs that have a key (most runs of a batch, and every step of
-- every run, have none: NULL keys never collide, so nothing was checked for them anyway), and the runs a lost node
-- owes a dispatch are found through run_state_updated (its PENDING runs) rather than an index of their own.
drop index run_submission_key;
create unique index run_submission_key on run (submission_key) where submission_key is not null;
drop index run_pending_dispatched_by;

-- An incarnation a node retired (a send after a commit failed) is kept apart from one that fell silent, and each says
-- until when every dispatch it recorded was sent (on its node's clock, as runs are stamped): only the runs it moved
-- since then are sent again, not a whole backlog that waits in the queues.
alter table node_presence add column retired_at timestamp with time zone;
alter table node_presence add column sent_until timestamp with time zone;
