-- The wait queues of a checkpoint's partition at its position: a queue decides later records as
-- the leases do, so a checkpoint holds it. A partition where someone always waits still gets
-- checkpoints, and a replay that starts from one rebuilds the queues.
CREATE TABLE checkpoint_waiters (
    checkpoint_id   BIGINT      NOT NULL REFERENCES partition_checkpoints ON DELETE CASCADE,
    record_offset   BIGINT      NOT NULL,
    resource        TEXT        NOT NULL,
    request_id      TEXT        NOT NULL,
    owner           TEXT        NOT NULL,
    ttl_ms          BIGINT      NOT NULL,
    queued_at       TIMESTAMPTZ NOT NULL,
    deadline        TIMESTAMPTZ NOT NULL,
    reply_topic     TEXT        NOT NULL,
    reply_partition INTEGER,
    correlation_id  BYTEA,
    fingerprint     TEXT        NOT NULL,
    PRIMARY KEY (checkpoint_id, record_offset)
);
