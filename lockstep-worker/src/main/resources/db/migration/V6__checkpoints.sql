-- Checkpoints (docs/audit.md "Checkpoints"): a partition's state at a position, copied from the
-- tables above in the batch transaction that left it, so that a replay can start there once the
-- records before it are gone from the log. What is copied is what a later record can be decided
-- by: the leases a record may still see and the request entries still remembered.
CREATE TABLE partition_checkpoints (
    checkpoint_id        BIGSERIAL   PRIMARY KEY,
    topic                TEXT        NOT NULL,
    partition            INTEGER     NOT NULL,
    topic_id             TEXT        NOT NULL,
    next_offset          BIGINT      NOT NULL,
    last_now             TIMESTAMPTZ NOT NULL,
    token_base           BIGINT      NOT NULL,
    quarantine_from      BIGINT,
    quarantine_to        BIGINT,
    quarantine_until     TIMESTAMPTZ,
    request_retention_ms BIGINT      NOT NULL,
    recorded_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (topic, partition, topic_id, next_offset)
);

CREATE TABLE checkpoint_leases (
    checkpoint_id BIGINT      NOT NULL REFERENCES partition_checkpoints ON DELETE CASCADE,
    resource      TEXT        NOT NULL,
    owner         TEXT        NOT NULL,
    fencing_token BIGINT      NOT NULL,
    acquired_at   TIMESTAMPTZ NOT NULL,
    expires_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (checkpoint_id, resource)
);

CREATE TABLE checkpoint_requests (
    checkpoint_id BIGINT      NOT NULL REFERENCES partition_checkpoints ON DELETE CASCADE,
    request_id    TEXT        NOT NULL,
    fingerprint   TEXT        NOT NULL,
    reply         TEXT        NOT NULL,
    record_offset BIGINT      NOT NULL,
    applied_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (checkpoint_id, request_id)
);
