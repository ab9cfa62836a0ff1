-- Version 29 (issue #23): the run and dead-letter lists are newest first, and a search's page is the newest of its
-- matches. Without an index in that order, a search matching a third of a million runs sorted every run to find the
-- first 50 (0.6 s); with it, the newest runs are walked and each checked against run_search (2 ms). A run's row is
-- written anew by each step, so this index takes an entry per step, like the run's other indexes (benchmarks.md,
-- issue #23, says what that cost a step). Building it holds the run table's writes: about a second per million runs.
create index run_created on run (created_at desc, id);
create index dead_letter_created on dead_letter (created_at, id);
