-- The retention index serves the sweeper alone, which says so with "applied_at > '-infinity'" (true
-- of every entry). A batch's lookup of its request IDs says nothing of applied_at, so PostgreSQL can
-- no longer choose this index for it: for a partition its statistics had not seen, or before it had
-- any, it estimated (topic, partition) to match one row and read all of a partition's entries through
-- this index, filtering them by request ID, where the primary key finds each ID in one probe.
DROP INDEX request_log_partition_applied_at;
CREATE INDEX request_log_partition_applied_at ON request_log (topic, partition, applied_at)
    WHERE applied_at > '-infinity';
