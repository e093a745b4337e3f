-- Acquires waiting in their resource's queue (docs/protocol.md, "Waiting"), from the record that
-- queued them until a later record grants them, ends their wait, or cancels them. The queue's
-- order is the log's: record_offset.
CREATE TABLE lock_waiters (
    topic           TEXT        NOT NULL,
    partition       INTEGER     NOT NULL,
    record_offset   BIGINT      NOT NULL,
    resource        TEXT        NOT NULL,
    request_id      TEXT        NOT NULL,
    owner           TEXT        NOT NULL,
    ttl_ms          BIGINT      NOT NULL CHECK (ttl_ms > 0),
    queued_at       TIMESTAMPTZ NOT NULL,
    deadline        TIMESTAMPTZ NOT NULL,
    reply_topic     TEXT        NOT NULL,
    reply_partition INTEGER,
    correlation_id  BYTEA,
    fingerprint     TEXT        NOT NULL,
    PRIMARY KEY (topic, partition, record_offset),
    UNIQUE (topic, partition, request_id)
);
CREATE INDEX lock_waiters_resource ON lock_waiters (topic, partition, resource, record_offset);
CREATE INDEX lock_waiters_deadline ON lock_waiters (topic, partition, deadline);

-- The one reply of an acquire that waited, made by the record that decided it: kept, as that
-- record's events are, until the broker acknowledged it, so that the record fetched again
-- publishes it again byte for byte.
CREATE TABLE deferred_replies (
    topic           TEXT    NOT NULL,
    partition       INTEGER NOT NULL,
    record_offset   BIGINT  NOT NULL,
    reply_index     INTEGER NOT NULL,
    request_id      TEXT    NOT NULL,
    reply_topic     TEXT    NOT NULL,
    reply_partition INTEGER,
    correlation_id  BYTEA,
    reply           TEXT    NOT NULL,
    outcome         TEXT    NOT NULL,
    PRIMARY KEY (topic, partition, record_offset, reply_index)
);

-- The record that decided a request, when it is not the request's own (an acquire that waited).
ALTER TABLE request_log ADD COLUMN decided_offset BIGINT;
ALTER TABLE checkpoint_requests ADD COLUMN decided_offset BIGINT;
