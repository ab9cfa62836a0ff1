-- Version 11: each dead letter's fingerprint, what its cause looks like (exception class, root cause and top stack
-- frames, normalised: dev.lazarus.deadletter.entity.Fingerprint), so dead letters are grouped by cause and a group
-- can be requeued; and a requeue job's filter by it. Only the columns here, so the migration holds its lock for a
-- moment: the dead letters recorded before it get their fingerprints from the sweeps, a thousand per sweep, computed
-- by the same code as new ones.
alter table dead_letter add column fingerprint varchar(16);
alter table requeue_job add column filter_fingerprint varchar(16);
create index dead_letter_fingerprint on dead_letter (fingerprint, status);
