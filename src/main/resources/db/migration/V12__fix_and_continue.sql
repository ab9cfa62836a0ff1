-- Version 12: fixing a stopped run by hand. An audit entry can say what an operator changed (the payload before and
-- after, the output they supplied, the step they skipped) as JSON next to their note of why.
alter table dead_letter_event add column detail varchar(300000);
