-- Version 9: when the last sweep finished, on which node, and what it did: one row, written by every sweep.
-- Each node's watchdog reads it (a persistent timer whose node died in the middle of a firing stays marked
-- as running in WildFly's timer table, and no other node fires it again), and it tells an operator whether
-- the sweeper runs.
create table last_sweep (
    id integer primary key check (id = 1),
    finished_at timestamp with time zone not null,
    node varchar(100) not null,
    took_ms bigint not null,
    candidates integer not null,
    dead_lettered integer not null
);
