-- Version 9: when each of the installation's persistent timers (the sweep, the retention purge, the check for
-- silent requeue jobs) last finished, on which node. A node killed in the middle of a firing leaves WildFly's
-- row of that timer marked as running, and no other node fires it again until that node is back; so every node
-- runs a watchdog of its own that reads this table and, when a timer is overdue, claims the run (claimed_at, one
-- node wins) and does the work itself. It also tells an operator whether the timers run.
create table timer_run (
    name varchar(40) primary key,
    finished_at timestamp with time zone not null,
    node varchar(100) not null,
    took_ms bigint not null,
    claimed_at timestamp with time zone,
    claimed_by varchar(100)
);
