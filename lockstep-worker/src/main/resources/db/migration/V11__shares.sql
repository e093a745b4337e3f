-- Shares (docs/protocol.md, "Shares"): a resource admits one exclusive holder, or up to its limit
-- of shared ones (a semaphore's permits, a read-write lock's readers), each on its own permit,
-- 0 to limit - 1. A lock's lease is permit 0 of 1, exclusive, as every row before this was.
-- The constraints make an over-grant impossible, as UNIQUE(resource) did for locks: one row per
-- permit, permits below the limit, and all rows of a resource of one share (one mode and one
-- limit), so neither more holders than the limit nor a shared beside an exclusive one.
CREATE EXTENSION IF NOT EXISTS btree_gist;
ALTER TABLE distributed_locks
    ADD COLUMN permit       INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN mode         TEXT    NOT NULL DEFAULT 'exclusive',
    ADD COLUMN permit_limit INTEGER NOT NULL DEFAULT 1,
    ADD CONSTRAINT distributed_locks_share CHECK (mode IN ('exclusive', 'shared')
        AND permit_limit BETWEEN 1 AND 64 AND (mode = 'shared' OR permit_limit = 1)),
    ADD CONSTRAINT distributed_locks_permit CHECK (permit >= 0 AND permit < permit_limit);
ALTER TABLE distributed_locks DROP CONSTRAINT distributed_locks_resource_key;
ALTER TABLE distributed_locks ADD CONSTRAINT distributed_locks_resource_permit UNIQUE (resource, permit);
ALTER TABLE distributed_locks ADD CONSTRAINT distributed_locks_one_share
    EXCLUDE USING gist (resource WITH =, (mode || '/' || permit_limit::text) WITH <>);

ALTER TABLE checkpoint_leases
    ADD COLUMN permit       INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN mode         TEXT    NOT NULL DEFAULT 'exclusive',
    ADD COLUMN permit_limit INTEGER NOT NULL DEFAULT 1;
ALTER TABLE checkpoint_leases DROP CONSTRAINT checkpoint_leases_pkey;
ALTER TABLE checkpoint_leases ADD PRIMARY KEY (checkpoint_id, resource, permit);
