-- Version 5 started each id sequence at the highest id in use + 1. But JPA's pooled id generator (allocation 50)
-- takes a value V of the sequence as the end of its block, V-49 .. V: the first block of each node after that
-- migration could hold up to 49 ids already in use, and those inserts failed. Each sequence is moved so that its
-- next value is at least the highest id in use + 50 (setval(s, m) makes the next value m + 50), so every block
-- lies above them. Where a sequence is already further on, it stays where it is.
select setval('dead_letter_seq', greatest(m, (select last_value from dead_letter_seq)))
from (select coalesce(max(id), 0) as m from dead_letter) ids;
select setval('dead_letter_event_seq', greatest(m, (select last_value from dead_letter_event_seq)))
from (select coalesce(max(id), 0) as m from dead_letter_event) ids;
select setval('step_execution_seq', greatest(m, (select last_value from step_execution_seq)))
from (select coalesce(max(id), 0) as m from step_execution) ids;
