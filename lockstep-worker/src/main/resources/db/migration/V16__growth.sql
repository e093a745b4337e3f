-- A growth of the command topic (docs/architecture.md, "Growing the command topic").

-- How the partition routes since its latest seal (dev.lockstep.engine.Layout's text); null: by the
-- count its recorded settings name, as every partition did before growths.
ALTER TABLE partition_progress ADD COLUMN layout TEXT;
ALTER TABLE partition_checkpoints ADD COLUMN layout TEXT;

-- The carries and takens a seal asked for, written with the seal's batch and deleted once the
-- broker acknowledged them where they go: a crash between the two sends them again (a repeat
-- changes nothing there).
CREATE TABLE growth_transfers (
    topic          TEXT    NOT NULL,
    partition      INTEGER NOT NULL,
    record_offset  BIGINT  NOT NULL,
    transfer_index INTEGER NOT NULL,
    to_partition   INTEGER NOT NULL,
    record_key     TEXT,
    header         TEXT    NOT NULL,
    header_value   BYTEA   NOT NULL,
    value          BYTEA   NOT NULL,
    PRIMARY KEY (topic, partition, record_offset, transfer_index)
);

-- The growth a worker started sealing for: one per count it grows from, so that workers that
-- find different counts on the cluster all append the same seals. Decides nothing: the seals in
-- the log do.
CREATE TABLE topic_growths (
    topic       TEXT        NOT NULL,
    from_count  INTEGER     NOT NULL,
    to_count    INTEGER     NOT NULL CHECK (to_count > from_count),
    started_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    finished_at TIMESTAMPTZ,
    PRIMARY KEY (topic, from_count)
);
