-- Version 23 (issue #23): runs are found by what an operator knows of them: a business key (an order id), labels, and a
-- field of the payload they were submitted with.
--
-- A table of its own, written once when a run is submitted and never updated: every step writes its run's row anew
-- (V22), and PostgreSQL adds an entry to each of the run's indexes whose column changed. A GIN index over run.payload,
-- which every step rewrites, would put a GIN insertion into every step's transaction; here it costs one insertion
-- per submission and nothing per step. The payload searched is therefore the one the run was submitted with.
-- No foreign key to run (runs are never deleted, and the run's insert is flushed after this row's in a batch).
create table run_search (
    run_id       uuid         not null primary key,
    pipeline     varchar(100) not null,
    business_key varchar(200),
    -- the submitter asked that no other run of the pipeline carry this key
    unique_key   boolean      not null default false,
    -- text[], not varchar[]: "labels @> array[...]" compares arrays of one type, and a cast of the column would
    -- keep the GIN index out of the plan
    labels       text[],
    -- the submitted payload; null if it was empty or cannot be jsonb (a string holding U+0000)
    payload      jsonb,
    constraint run_search_labels_bounded check (labels is null or cardinality(labels) <= 20)
);

-- GET /api/runs?key= : the key alone, or the key of a pipeline (the uniqueness check)
create index run_search_key on run_search (business_key, pipeline) where business_key is not null;
-- at most one run per pipeline and key among those submitted with "uniqueKey": true; submissions take an advisory
-- lock on (pipeline, key) first, so a unique one also sees runs given the key without it, and this index is the
-- last word if anything else wrote the table
create unique index run_search_unique_key on run_search (pipeline, business_key) where unique_key;
create index run_search_labels on run_search using gin (labels) where labels is not null;
-- jsonb_path_ops: containment (@>) only, and about a third of the default operator class's size
create index run_search_payload on run_search using gin (payload jsonb_path_ops) where payload is not null;

-- The search conditions as functions that PostgreSQL inlines into the query (one SQL expression, immutable, not
-- strict): the plan sees "payload @> $1::jsonb" and "labels @> $1" and uses the GIN indexes. JPQL names them with
-- function(...), without a native query per combination of filters.
create function lazarus_payload_contains(payload jsonb, wanted text) returns boolean
    language sql immutable parallel safe
    as 'select payload @> wanted::jsonb';
create function lazarus_labels_contain(labels text[], wanted text) returns boolean
    language sql immutable parallel safe
    as 'select labels @> string_to_array(wanted, '' '')';

-- Runs submitted before this version: findable by the payload they have now (their submitted one is gone); no key
-- or labels. A payload that cannot be jsonb is left out rather than failing the migration.
create function lazarus_jsonb_or_null(text) returns jsonb language plpgsql immutable as $$
begin
    return $1::jsonb;
exception when others then
    return null;
end $$;
insert into run_search (run_id, pipeline, payload)
select id, pipeline, payload_document
from (select id, pipeline, lazarus_jsonb_or_null(payload) as payload_document from run) existing
where payload_document is not null and payload_document <> '{}'::jsonb and jsonb_typeof(payload_document) = 'object';
drop function lazarus_jsonb_or_null(text);
