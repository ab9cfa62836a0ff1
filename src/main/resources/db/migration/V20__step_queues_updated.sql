-- Version 20 (issue #21): whether the brokers' queues have been brought to a step's current state. Every change of the
-- state sets it false in its own transaction; a node that has paused (or resumed) the step's queue on every broker sets
-- it true. Until then every node applies the state at each reading, so a resume whose node died before it told the
-- brokers (or that a broker did not hear) still reaches them, while a queue paused in the Artemis console under a
-- step whose state the brokers already follow is left alone.
alter table step_control add column queues_updated boolean not null default true;

-- the steps page's latest changes of every step (newest first) read from the top of an index, not the whole table
create index step_control_event_at on step_control_event (at, id);
