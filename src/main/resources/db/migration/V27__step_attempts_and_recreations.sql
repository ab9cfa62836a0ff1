-- Version 27 (issue #23): every delivery of a step, and runs recreated from others.
--
-- One row per attempt of a step's dispatch (a run, a generation): who ran it (the WildFly node), when, and how it
-- ended. Keyed by the dispatch and the attempt number, so no sequence is drawn on the hot path: a step's first
-- delivery inserts its row in the statement that records its success (StepRecords). Only the last
-- lazarus.attempts.kept-per-step attempts of a dispatch are kept; older ones are deleted when a newer one starts.
create table step_attempt (
    run_id          uuid          not null references run (id) on delete cascade,
    generation      bigint        not null,
    attempt         integer       not null,
    step_name       varchar(100)  not null,
    node            varchar(100),
    started_at      timestamp(6) with time zone not null,
    ended_at        timestamp(6) with time zone,
    outcome         varchar(20)   not null,
    exception_class varchar(300),
    message         varchar(1000),
    primary key (run_id, generation, attempt)
);

-- A run started from another (its dead letter's, or an ended run's) with the same or an edited payload: the link both
-- ways (the new run's row here; the old run and the dead letter find it by the indexes below), who and when.
create table run_recreation (
    run_id         uuid          primary key references run (id) on delete cascade,
    recreated_from uuid          not null,
    dead_letter_id bigint,
    payload_edited boolean       not null,
    created_by     varchar(200)  not null,
    created_at     timestamp(6) with time zone not null
);
create index run_recreation_from on run_recreation (recreated_from);
create index run_recreation_dead_letter on run_recreation (dead_letter_id) where dead_letter_id is not null;
