-- Version 19: an Idempotency-Key is stored with its caller's name in front (keys are per caller) and, in a batch, the
-- run's index after it; a client may send 200 characters of key, so the column holds the name and the index too.
-- Widening a varchar is a change of the catalogue only: no table rewrite, the unique index stays.
alter table run alter column submission_key type varchar(320);
