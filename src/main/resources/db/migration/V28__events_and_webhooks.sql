-- Version 28 (issue #23): events and webhooks.
--
-- Every dead letter, requeue, resolve, discard, stop, hold and resume writes one row here in the transaction that
-- made the change (an outbox: the row exists if and only if the change committed). After the commit the event is
-- published on the JMS topic lazarus.events; GET /api/events?after=<id> reads the rows back for followers without
-- JMS. The retention timer purges rows older than lazarus.events.keep-for (default 7 days).
create sequence lazarus_event_seq start with 1 increment by 1;
create table lazarus_event (
    id               bigint primary key,
    type             varchar(20) not null,
    at               timestamp with time zone not null,
    -- the event as published (lazarus.event/v1), so that what followers read back is what the topic carried
    body             text not null,
    pipeline         varchar(100),
    -- true while the webhooks have not taken the event into their windows yet (only when an enabled webhook existed)
    webhooks_pending boolean not null default false,
    -- the transaction that wrote it: followers read in (tx, id) order, and only the rows of transactions older than any
    -- still under way (prepared ones included), so a change that commits after a younger one is never passed over
    tx               xid8 not null default pg_current_xact_id()
);
create index lazarus_event_at on lazarus_event (at);
create index lazarus_event_tx on lazarus_event (tx, id);
create index lazarus_event_webhooks_pending on lazarus_event (id) where webhooks_pending;

-- Webhooks configured by API or admin page (source API) and those read from the configuration at start (source
-- CONFIGURATION, rewritten at every start, read-only elsewhere). The secret is never read back out of the database
-- except to sign a delivery.
create table webhook (
    name        varchar(100) primary key,
    url         varchar(2000) not null,
    secret      varchar(200),
    types       varchar(200),
    enabled     boolean not null,
    source      varchar(20) not null,
    created_at  timestamp with time zone not null,
    updated_at  timestamp with time zone not null,
    updated_by  varchar(100) not null,
    version     bigint not null default 0
);

-- Coalescing: the events of one type and cause for one webhook within lazarus.webhooks.coalesce-interval become one
-- notification. A row per open window, in the database so that two nodes share it (an upsert adds to the count; the
-- flush takes due windows with FOR UPDATE SKIP LOCKED and deletes them as it starts their deliveries).
create sequence webhook_window_seq start with 1 increment by 1;
create table webhook_window (
    id              bigint not null unique,
    webhook         varchar(100) not null,
    type            varchar(20) not null,
    fingerprint     varchar(100) not null,
    opened_at       timestamp with time zone not null,
    event_count     integer not null,
    first_at        timestamp with time zone not null,
    last_at         timestamp with time zone not null,
    first_event_id  bigint not null,
    samples         varchar(400) not null,
    primary key (webhook, type, fingerprint)
);
create index webhook_window_opened_at on webhook_window (opened_at);
