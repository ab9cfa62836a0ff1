-- Version 10: the trace (W3C trace id) each run's spans belong to, and the one a dead letter was recorded in, so an
-- operator goes from a run or its dead letter to the trace in one step.
alter table run add column trace_id varchar(32);
alter table dead_letter add column trace_id varchar(32);
