-- Version 14: what a dead letter's group of causes shows is stored with it, computed once when it is recorded by the
-- same rule as its fingerprint (dev.lazarus.deadletter.entity.Fingerprint): where its exception was thrown (the top
-- frame, class.method) and its root cause's class. Listing causes then reads columns and parses no stack trace.
-- fingerprint_rule is the rule that computed the three (2: frames from the stack trace proper, never from the
-- exception's message, which V11's rule also read). The dead letters recorded before this have none: the sweeps
-- compute them again, a thousand per sweep, by the same code as for new ones; the partial index finds them, and is
-- empty once they are done. Only columns and that index here: no row is rewritten, so the migration is short.
alter table dead_letter add column top_frame varchar(500);
alter table dead_letter add column root_cause varchar(500);
alter table dead_letter add column fingerprint_rule integer;
create index dead_letter_fingerprint_rule_missing on dead_letter (id) where fingerprint_rule is null;
