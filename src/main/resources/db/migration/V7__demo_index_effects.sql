-- Version 7: the demo's index step keeps a durable record of every effect it commits, one row per
-- execution, keyed by the dispatch's idempotency key. No unique constraint on purpose: the fault drills
-- count the keys with more than one row, so a step executed twice for one dispatch would show, not fail.
create table demo_index_effect (
    id               bigint        not null primary key,
    idempotency_key  varchar(200)  not null,
    run_id           uuid          not null,
    created_at       timestamp(6) with time zone not null
);
create index demo_index_effect_key on demo_index_effect (idempotency_key);
create sequence demo_index_effect_seq start with 1 increment by 50;
