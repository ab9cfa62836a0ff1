-- Version 8: a client may name its submission with an Idempotency-Key header. A retried submission whose
-- first attempt got no answer (a timeout, a broker or database outage) then finds the run the first one
-- created instead of starting it twice. The digest tells a true retry from a different request reusing a key.
alter table run add column submission_key varchar(200);
alter table run add column submission_digest varchar(64);
create unique index run_submission_key on run (submission_key);
