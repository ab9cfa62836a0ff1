-- Version 26: root causes on resolve, and the triage score's reads (issue #23).
-- Why a dead letter happened, as the operator who resolved it judged (CODE_DEFECT, BAD_DATA, DEPENDENCY,
-- CONFIGURATION, OTHER; optional): counted on the dashboard next to the time to resolve.
alter table dead_letter add column resolved_root_cause varchar(20);
-- A bulk resolve's root cause, recorded with each dead letter it resolves.
alter table bulk_job add column root_cause varchar(20);
-- The dashboard counts resolved dead letters by root cause: only the resolved ones are read.
create index dead_letter_resolved_root_cause on dead_letter (resolved_root_cause) where status = 'RESOLVED_MANUALLY';
