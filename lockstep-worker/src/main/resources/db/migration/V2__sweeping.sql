-- Ended leases and old replies are swept in bounded batches, off the hot path. These indexes let
-- the sweeper find them without scanning the tables.
CREATE INDEX distributed_locks_expires_at ON distributed_locks (expires_at);
CREATE INDEX request_log_applied_at ON request_log (applied_at);

-- Removing a lease row would forget its fencing token. The sweeper raises this floor to the
-- largest token it removes, in the same transaction, and every new grant starts above it, so
-- tokens still only grow per resource.
CREATE TABLE fencing_floor (
    id    BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (id),
    floor BIGINT  NOT NULL
);
INSERT INTO fencing_floor (id, floor) VALUES (TRUE, 0);
