-- The command log is the truth; these tables are its projection (docs/protocol.md).

-- Each partition records which incarnation of the command topic it follows (its topic ID), the
-- base of its position-derived fencing tokens, a quarantine after records lost from the log, and
-- the settings its records are decided under.
ALTER TABLE partition_progress
    ADD COLUMN topic_id             TEXT,
    ADD COLUMN token_base           BIGINT NOT NULL DEFAULT 0 CHECK (token_base >= 0),
    ADD COLUMN quarantine_from      BIGINT,
    ADD COLUMN quarantine_to        BIGINT,
    ADD COLUMN quarantine_until     TIMESTAMPTZ,
    ADD COLUMN settings             TEXT,
    ADD COLUMN request_retention_ms BIGINT NOT NULL DEFAULT 86400000,
    -- Replies of records below this offset were acknowledged by the broker; a worker taking the
    -- partition over publishes the replies from here to next_offset again (they may have been lost).
    ADD COLUMN acked_offset         BIGINT NOT NULL DEFAULT 0;
UPDATE partition_progress SET acked_offset = next_offset;

-- Tokens used to be a counter per resource above a floor. Position-derived tokens start above
-- every token issued so far, on every partition.
UPDATE partition_progress SET token_base = GREATEST(
    (SELECT floor FROM fencing_floor),
    (SELECT COALESCE(MAX(fencing_token), 0) FROM distributed_locks));
DROP TABLE fencing_floor;

-- A lease row is removed once it ended in its partition's log time (no later record can observe
-- it), so the row says which partition it belongs to.
ALTER TABLE distributed_locks ADD COLUMN topic TEXT, ADD COLUMN partition INTEGER;
DROP INDEX distributed_locks_expires_at;
CREATE INDEX distributed_locks_partition_expires_at ON distributed_locks (topic, partition, expires_at);
-- Rows from before have no partition: remove those that ended before every partition's clock.
DELETE FROM distributed_locks
 WHERE expires_at <= (SELECT COALESCE(MIN(last_now), timestamptz 'epoch') FROM partition_progress);

-- Request IDs are scoped per partition, like everything a reply depends on.
ALTER TABLE request_log DROP CONSTRAINT request_log_pkey;
ALTER TABLE request_log ADD PRIMARY KEY (topic, partition, request_id);
DROP INDEX request_log_applied_at;
CREATE INDEX request_log_partition_applied_at ON request_log (topic, partition, applied_at);

-- Every start of a partition's epoch: first start, a re-created topic, records lost from the log,
-- a settings change. Append-only, for operators and auditors; the current epoch is in partition_progress.
CREATE TABLE partition_epochs (
    topic        TEXT        NOT NULL,
    partition    INTEGER     NOT NULL,
    start_offset BIGINT      NOT NULL,
    topic_id     TEXT        NOT NULL,
    token_base   BIGINT      NOT NULL,
    settings     TEXT        NOT NULL,
    reason       TEXT        NOT NULL,
    recorded_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX partition_epochs_partition ON partition_epochs (topic, partition, start_offset);
