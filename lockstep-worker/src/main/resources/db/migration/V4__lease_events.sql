-- Lease events (docs/protocol.md "Lease events") are published to the events topic. Each is kept
-- here from the batch that made it until its publication was acknowledged, so that a record
-- fetched again publishes the same events again, byte for byte, as its reply comes from request_log.
CREATE TABLE lease_events (
    topic         TEXT    NOT NULL,
    partition     INTEGER NOT NULL,
    record_offset BIGINT  NOT NULL,
    event_index   INTEGER NOT NULL,
    resource      TEXT    NOT NULL,
    event         TEXT    NOT NULL,
    PRIMARY KEY (topic, partition, record_offset, event_index)
);

-- From now on a released lease's row is removed when it is released, and an expired one is kept
-- for the request retention after it ended (a grant to another owner within it is a takeover).
-- Rows from before cannot tell a release from an expiry; they are kept as expired leases.
