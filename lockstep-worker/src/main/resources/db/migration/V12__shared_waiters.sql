-- The share a waiting acquire asks for (docs/protocol.md, "Shares"): a lock's waiters are
-- exclusive, as every waiter before this was.
ALTER TABLE lock_waiters
    ADD COLUMN mode         TEXT    NOT NULL DEFAULT 'exclusive' CHECK (mode IN ('exclusive', 'shared')),
    ADD COLUMN permit_limit INTEGER NOT NULL DEFAULT 1 CHECK (permit_limit BETWEEN 1 AND 64);
ALTER TABLE checkpoint_waiters
    ADD COLUMN mode         TEXT    NOT NULL DEFAULT 'exclusive',
    ADD COLUMN permit_limit INTEGER NOT NULL DEFAULT 1;
