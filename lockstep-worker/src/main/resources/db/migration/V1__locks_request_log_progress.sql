-- One row per resource: its latest lease, live or ended. An ended lease (expired, or released,
-- which sets expires_at to the release time) stays, because its fencing token is the floor for
-- the next grant on that resource.
CREATE TABLE distributed_locks (
    resource      TEXT        NOT NULL UNIQUE,
    owner         TEXT        NOT NULL,
    fencing_token BIGINT      NOT NULL CHECK (fencing_token > 0),
    acquired_at   TIMESTAMPTZ NOT NULL,
    expires_at    TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    CHECK (char_length(resource) BETWEEN 1 AND 255),
    CHECK (char_length(owner) BETWEEN 1 AND 255)
);

-- Idempotency: the reply every applied command got, byte for byte, so a retry or a redelivery
-- is answered with the same reply instead of being applied again.
CREATE TABLE request_log (
    request_id   TEXT        PRIMARY KEY,
    fingerprint  TEXT        NOT NULL,
    reply        TEXT        NOT NULL,
    topic        TEXT        NOT NULL,
    partition    INTEGER     NOT NULL,
    record_offset BIGINT     NOT NULL,
    applied_at   TIMESTAMPTZ NOT NULL,
    CHECK (char_length(request_id) BETWEEN 1 AND 128)
);

-- Progress per command-topic partition: the next offset to apply, and the last instant used as
-- "now" there (time never runs backwards on a partition, whichever worker applies it).
-- Its row is locked by every batch, which is what stops two workers applying one record twice.
CREATE TABLE partition_progress (
    topic       TEXT        NOT NULL,
    partition   INTEGER     NOT NULL,
    next_offset BIGINT      NOT NULL,
    last_now    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (topic, partition)
);
