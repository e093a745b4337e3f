-- A waiter the rules could grant after a record that granted its resource to the waiter before it
-- (a record grants a resource to one waiter at most, so that every grant has a token of its own):
-- the offset of that record (docs/protocol.md, "Hand-overs"). The worker appends a hand-over record
-- for it at once, and its ticker again if that one was lost; no decision reads it.
ALTER TABLE lock_waiters ADD COLUMN hand_over_due BIGINT;
CREATE INDEX lock_waiters_hand_over_due ON lock_waiters (topic, partition) WHERE hand_over_due IS NOT NULL;
