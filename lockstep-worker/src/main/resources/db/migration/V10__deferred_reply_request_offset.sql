-- The offset of the acquire a deferred reply answers: a mark of that reply, when it cannot be
-- delivered, names the acquire (docs/protocol.md, "undeliverable"), not the record that decided it.
ALTER TABLE deferred_replies ADD COLUMN request_offset BIGINT;
UPDATE deferred_replies d SET request_offset = r.record_offset
    FROM request_log r
    WHERE r.topic = d.topic AND r.partition = d.partition AND r.request_id = d.request_id;
-- None is expected without its request's row (a deferred reply's row lives until the broker
-- acknowledged it, its request's for the request retention); one would be marked as before.
UPDATE deferred_replies SET request_offset = record_offset WHERE request_offset IS NULL;
ALTER TABLE deferred_replies ALTER COLUMN request_offset SET NOT NULL;
