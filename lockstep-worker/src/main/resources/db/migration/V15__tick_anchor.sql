-- What a position holds beside its clock (docs/protocol.md, "Time" and "Ticks"): the last tick
-- applied, which the next tick measures the time between them from, and the time up to which
-- anything dated (a lease, a quarantine) may still be live: the ticker leaves alone a partition
-- where nothing can end, and its time catches up with the log's once past it. Times are kept as the clock (last_now) is. NULL is "not known": rows from before
-- keep it, and the worker takes an unknown end as the longest TTL and wait after the clock; nothing
-- is filled in here, as only the log could tell.
ALTER TABLE partition_progress
    ADD COLUMN last_tick_offset BIGINT,
    ADD COLUMN last_tick_time   TIMESTAMPTZ,
    ADD COLUMN live_until       TIMESTAMPTZ,
    -- A tick is its offset and its log time together.
    ADD CONSTRAINT partition_progress_last_tick CHECK ((last_tick_offset IS NULL) = (last_tick_time IS NULL));

-- A checkpoint holds the position whole (copied from the row above), so that a replay starting
-- there ticks and ends as the worker did.
ALTER TABLE partition_checkpoints
    ADD COLUMN last_tick_offset BIGINT,
    ADD COLUMN last_tick_time   TIMESTAMPTZ,
    ADD COLUMN live_until       TIMESTAMPTZ;
