-- A lease's value (docs/protocol.md, "Leader election"): what its holder publishes, a leader's
-- address; set by an acquire, kept by renews. A waiting acquire keeps the one it asks for.
-- The protocol bounds it to 255 characters; the checks keep a row from holding more.
ALTER TABLE distributed_locks ADD COLUMN value TEXT CHECK (char_length(value) BETWEEN 1 AND 255);
ALTER TABLE checkpoint_leases ADD COLUMN value TEXT;
ALTER TABLE lock_waiters ADD COLUMN value TEXT CHECK (char_length(value) BETWEEN 1 AND 255);
ALTER TABLE checkpoint_waiters ADD COLUMN value TEXT;
