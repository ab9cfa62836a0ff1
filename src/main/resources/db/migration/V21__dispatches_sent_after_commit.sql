-- Version 21 (issue #22): a step's record commits first and its next dispatch is sent after, outside the transaction
-- (an idempotent consumer instead of two-phase commit). A run waiting for a dispatch names the node that sends it
-- (its incarnation: the node and the start it is in); a node that dies between the commit and the send leaves its
-- runs PENDING under its name, and another node sends them again (the broker drops the copies it already has).
alter table run add column dispatched_by varchar(140);
-- the runs a node owes a dispatch, found without reading every waiting run
create index run_pending_dispatched_by on run (dispatched_by) where state = 'PENDING';

-- Every node's current incarnation and when it was last seen alive (every few seconds); one silent for
-- lazarus.dispatch.node-silent-after is dead, and so is an older incarnation of a node that has started again.
create table node_presence (
    incarnation varchar(140) primary key,
    node        varchar(100) not null,
    started_at  timestamp with time zone not null,
    seen_at     timestamp with time zone not null
);

-- A message refused again after its consumer died before acknowledging it (the refusal committed, the acknowledgement
-- did not) finds its dead letter by its message id instead of recording a second one.
create index dead_letter_message_id on dead_letter (message_id);
