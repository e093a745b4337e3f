-- Shares (docs/protocol.md, "Shares"): a resource admits one exclusive holder, or up to its limit
-- of shared ones (a semaphore's permits, a read-write lock's readers), each on its own permit,
-- 0 to limit - 1. A lock's lease is permit 0 of 1, exclusive, as every row before this was.
-- The constraints make an over-grant impossible, as UNIQUE(resource) did for locks: one row per
-- permit, permits below the limit, and the shared rows of a resource of one limit, so never more
-- holders than the limit. (That an exclusive row never stands beside shared ones is the worker's
-- rule, checked by the history checker: an exclusion constraint over every row made each lock's
-- row write about ten times as costly, and the worker's store about 15 % slower, docs/bench/journal.md;
-- over the shared rows alone it costs a lock nothing.)
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
ALTER TABLE distributed_locks ADD CONSTRAINT distributed_locks_one_limit
    EXCLUDE USING gist (resource WITH =, permit_limit WITH <>) WHERE (mode = 'shared');

ALTER TABLE checkpoint_leases
    ADD COLUMN permit       INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN mode         TEXT    NOT NULL DEFAULT 'exclusive',
    ADD COLUMN permit_limit INTEGER NOT NULL DEFAULT 1;
ALTER TABLE checkpoint_leases DROP CONSTRAINT checkpoint_leases_pkey;
ALTER TABLE checkpoint_leases ADD PRIMARY KEY (checkpoint_id, resource, permit);
