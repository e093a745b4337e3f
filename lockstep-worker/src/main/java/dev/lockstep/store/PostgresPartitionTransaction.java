package dev.lockstep.store;

import static dev.lockstep.store.SqlArrays.EPOCH_MS;

import dev.lockstep.core.Lease;
import dev.lockstep.engine.DeferredReply;
import dev.lockstep.engine.EpochOrigin;
import dev.lockstep.engine.EventEntry;
import dev.lockstep.engine.Outbound;
import dev.lockstep.engine.PartitionPosition;
import dev.lockstep.engine.PartitionState;
import dev.lockstep.engine.RequestEntry;
import dev.lockstep.engine.StoredPartition;
import dev.lockstep.engine.Waiter;
import dev.lockstep.protocol.EventCodec;
import dev.lockstep.protocol.LeaseEvent;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One batch's statements. Every value is a bound parameter; arrays carry whole batches
 * ({@link SqlArrays}) so the number of statements does not grow with the batch.
 */
final class PostgresPartitionTransaction implements PartitionTransaction {

    private static final String SELECT_PARTITION =
            "SELECT topic_id, next_offset, last_now, token_base, quarantine_from, quarantine_to, quarantine_until, "
                    + "settings, last_tick_offset, last_tick_time, live_until, layout FROM partition_progress "
                    + "WHERE topic = ? AND partition = ? FOR UPDATE";
    private static final String UPDATE_POSITION =
            "UPDATE partition_progress SET next_offset = ?, last_now = " + EPOCH_MS.formatted("?")
                    + ", quarantine_from = ?, quarantine_to = ?, quarantine_until = " + EPOCH_MS.formatted("?")
                    + ", last_tick_offset = ?, last_tick_time = " + EPOCH_MS.formatted("?")
                    + ", live_until = " + EPOCH_MS.formatted("?")
                    + ", token_base = ?, layout = ?"
                    + ", acked_offset = GREATEST(acked_offset, ?) WHERE topic = ? AND partition = ?";
    private static final String SELECT_ACKED =
            "SELECT acked_offset FROM partition_progress WHERE topic = ? AND partition = ?";
    // Each ID one probe of the primary key, for any table the statistics know of some size. As "topic = ? AND
    // partition = ? AND request_id = ANY(?)", for a partition the statistics had not seen (or before
    // there were any) PostgreSQL estimated one matching row and read all the partition's entries,
    // filtering them by ID; the retention index is closed to this statement (V7), and the IDs joined
    // row by row make the key's probes the cheapest plan left (StorePlansIT). A plan made while the
    // table had no statistics reads it whole: TableStatistics keeps them in step.
    static final String SELECT_REQUESTS =
            "SELECT request_id, fingerprint, reply, record_offset, applied_at, decided_offset FROM request_log "
                    + "WHERE (topic, partition, request_id) IN (SELECT ?::text, ?::integer, unnest(?::text[]))";
    // A request ID applied again after its retention replaces its old entry.
    private static final String UPSERT_REQUESTS =
            "INSERT INTO request_log (request_id, fingerprint, reply, topic, partition, record_offset, applied_at, "
                    + "decided_offset) SELECT id, fp, body, ?, ?, off, " + EPOCH_MS.formatted("at") + ", NULLIF(dec, off)"
                    + " FROM unnest(?::text[], ?::text[], ?::text[], ?::bigint[], ?::bigint[], ?::bigint[]) "
                    + "AS u(id, fp, body, off, at, dec) "
                    + "ON CONFLICT (topic, partition, request_id) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, "
                    + "reply = EXCLUDED.reply, record_offset = EXCLUDED.record_offset, applied_at = EXCLUDED.applied_at, "
                    + "decided_offset = EXCLUDED.decided_offset";
    private static final String SELECT_REQUESTS_SINCE =
            "SELECT request_id, fingerprint, reply, record_offset, applied_at, decided_offset FROM request_log "
                    + "WHERE topic = ? AND partition = ? AND applied_at >= " + EPOCH_MS.formatted("?");
    private static final String SELECT_EVENTS =
            "SELECT record_offset, event_index, resource, event FROM lease_events "
                    + "WHERE topic = ? AND partition = ? AND record_offset >= ? AND record_offset < ?";
    private static final String INSERT_EVENTS =
            "INSERT INTO lease_events (topic, partition, record_offset, event_index, resource, event) "
                    + "SELECT ?, ?, off, idx, res, body FROM unnest(?::bigint[], ?::integer[], ?::text[], ?::text[]) "
                    + "AS u(off, idx, res, body)";
    private static final String SELECT_LARGEST_TOKEN = "SELECT COALESCE(MAX(fencing_token), 0) FROM distributed_locks";

    private final Connection connection;
    private final PartitionId partition;
    private final LeaseRows leases;
    private final WaiterRows waiters;
    private final Map<PartitionId, Instant> checkpointed;
    private Optional<Instant> savedClock = Optional.empty();

    /** @param checkpointed each partition's latest checkpoint time, as this store last saw it */
    PostgresPartitionTransaction(Connection connection, PartitionId partition, Map<PartitionId, Instant> checkpointed) {
        this.connection = connection;
        this.partition = partition;
        this.leases = new LeaseRows(connection, partition);
        this.waiters = new WaiterRows(connection, partition);
        this.checkpointed = checkpointed;
    }

    @Override
    public Optional<StoredPartition> partition() {
        try (PreparedStatement select = connection.prepareStatement(SELECT_PARTITION)) {
            select.setString(1, partition.topic());
            select.setInt(2, partition.partition());
            try (ResultSet rs = select.executeQuery()) {
                return SqlArrays.storedPartition(rs);
            }
        } catch (SQLException e) {
            throw fail("reading the partition's position", e);
        }
    }

    @Override
    public Opening open(Collection<String> requestIds, Optional<LeaseQuery> guess) {
        // Statements sent as one, run in order: the row lock is held before anything else is read.
        String sql = SELECT_PARTITION + ";\n" + SELECT_REQUESTS
                + (guess.isPresent() ? ";\n" + LeaseRows.SELECT + ";\n" + WaiterRows.SELECT : "");
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            select.setString(1, partition.topic());
            select.setInt(2, partition.partition());
            select.setString(3, partition.topic());
            select.setInt(4, partition.partition());
            select.setArray(5, SqlArrays.text(connection, requestIds));
            if (guess.isPresent()) {
                leases.bind(select, 6, guess.get().resources(), guess.get().endingAfter(), guess.get().endingBy());
                waiters.bind(select, 11, guess.get(), requestIds);
            }
            select.execute();
            Optional<StoredPartition> stored;
            try (ResultSet rs = select.getResultSet()) {
                stored = SqlArrays.storedPartition(rs);
            }
            Map<String, RequestEntry> entries = new HashMap<>();
            try (ResultSet rs = next(select)) {
                while (rs.next()) {
                    RequestEntry entry = SqlArrays.requestEntry(rs);
                    entries.put(entry.requestId(), entry);
                }
            }
            Optional<List<Lease>> guessed = Optional.empty();
            Optional<List<Waiter>> guessedWaiters = Optional.empty();
            if (guess.isPresent()) {
                try (ResultSet rs = next(select)) {
                    guessed = Optional.of(leases.read(rs, guess.get().endingAfter()));
                }
                try (ResultSet rs = next(select)) {
                    guessedWaiters = Optional.of(WaiterRows.readAll(rs));
                }
            }
            return new Opening(stored, entries, guessed, guessedWaiters);
        } catch (SQLException e) {
            throw fail("reading the partition's position, request entries, leases and waiters", e);
        }
    }

    private static ResultSet next(PreparedStatement statements) throws SQLException {
        if (!statements.getMoreResults()) {
            throw new SQLException("a statement of the batch's first read returned no result");
        }
        return statements.getResultSet();
    }

    @Override
    public List<Lease> leasesForUpdate(Collection<String> resources, Instant endingAfter, Instant endingBy) {
        try {
            return leases.forUpdate(resources, endingAfter, endingBy);
        } catch (SQLException e) {
            throw fail("reading leases", e);
        }
    }

    @Override
    public Map<String, RequestEntry> requestsSince(Instant since) {
        try (PreparedStatement select = connection.prepareStatement(SELECT_REQUESTS_SINCE)) {
            select.setString(1, partition.topic());
            select.setInt(2, partition.partition());
            select.setLong(3, since.toEpochMilli());
            Map<String, RequestEntry> entries = new HashMap<>();
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    RequestEntry entry = SqlArrays.requestEntry(rs);
                    entries.put(entry.requestId(), entry);
                }
            }
            return entries;
        } catch (SQLException e) {
            throw fail("reading the recent request entries", e);
        }
    }

    @Override
    public List<EventEntry> events(long fromOffset, long toOffset) {
        try {
            return SqlArrays.recordRange(connection, SELECT_EVENTS, partition, fromOffset, toOffset, rs -> {
                String value = rs.getString(4);
                LeaseEvent event = EventCodec.decode(value.getBytes(StandardCharsets.UTF_8));
                return new EventEntry(rs.getLong(1), rs.getInt(2), event.eventId(), event.kind(), rs.getString(3), value,
                        event.waited());
            });
        } catch (SQLException e) {
            throw fail("reading lease events", e);
        }
    }

    @Override
    public List<Waiter> waiters(LeaseQuery leases, Collection<String> requestIds) {
        try {
            return waiters.read(leases, requestIds);
        } catch (SQLException e) {
            throw fail("reading the wait queues", e);
        }
    }

    @Override
    public List<DeferredReply> deferredReplies(long fromOffset, long toOffset) {
        try {
            return waiters.replies(fromOffset, toOffset);
        } catch (SQLException e) {
            throw fail("reading the replies given to waiters", e);
        }
    }

    @Override
    public long largestToken() {
        try (PreparedStatement select = connection.prepareStatement(SELECT_LARGEST_TOKEN);
                ResultSet rs = select.executeQuery()) {
            return rs.next() ? rs.getLong(1) : 0;
        } catch (SQLException e) {
            throw fail("reading the largest token", e);
        }
    }

    @Override
    public void save(PartitionState state, long acknowledged) {
        PartitionPosition position = state.position();
        Script script = new Script();
        leases.write(script, state.changedLeases(), state.removedLeases());
        upsertRequests(script, state.changedRequests());
        insertEvents(script, state.newEvents());
        waiters.write(script, state.queues().joined(), state.queues().left(), state.queues().due());
        waiters.insertReplies(script, state.newDeferredReplies());
        insertTransfers(script, state.newTransfers());
        script.add(UPDATE_POSITION, (update, at) -> {
            update.setLong(at.next(), position.nextOffset());
            update.setLong(at.next(), position.clock().toEpochMilli());
            SqlArrays.setQuarantine(update, at.take(3), position.quarantine());
            SqlArrays.setTickAndLive(update, at.take(3), position);
            update.setLong(at.next(), position.tokenBase());
            update.setString(at.next(), position.layout().map(dev.lockstep.engine.Layout::text).orElse(null));
            update.setLong(at.next(), acknowledged);
            update.setString(at.next(), partition.topic());
            update.setInt(at.next(), partition.partition());
        }, Script.exactly(1, "partition " + partition + " was never started"));
        try {
            script.run(connection);
        } catch (SQLException e) {
            throw fail("saving the batch", e);
        }
        savedClock = Optional.of(position.clock());
    }

    @Override
    public boolean checkpointIfDue(CheckpointPolicy policy) {
        if (savedClock.isEmpty()) {
            return false;
        }
        try {
            return CheckpointRows.takeIfDue(connection, partition, policy, savedClock.get(), checkpointed);
        } catch (SQLException e) {
            throw fail("taking a checkpoint", e);
        }
    }

    @Override
    public long acknowledgedOffset() {
        try (PreparedStatement select = connection.prepareStatement(SELECT_ACKED)) {
            select.setString(1, partition.topic());
            select.setInt(2, partition.partition());
            try (ResultSet rs = select.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        } catch (SQLException e) {
            throw fail("reading the acknowledged offset", e);
        }
    }

    @Override
    public void begin(StoredPartition started, EpochOrigin origin, String reason) {
        try {
            EpochRows.begin(connection, partition, started, origin, reason);
        } catch (SQLException e) {
            throw fail("recording a new epoch", e);
        }
    }

    private void upsertRequests(Script script, Collection<RequestEntry> requests) {
        if (requests.isEmpty()) {
            return;
        }
        script.add(UPSERT_REQUESTS, (insert, at) -> {
            insert.setString(at.next(), partition.topic());
            insert.setInt(at.next(), partition.partition());
            insert.setArray(at.next(), SqlArrays.text(connection, requests.stream().map(RequestEntry::requestId).toList()));
            insert.setArray(at.next(), SqlArrays.text(connection,
                    requests.stream().map(r -> r.fingerprint().hex()).toList()));
            insert.setArray(at.next(), SqlArrays.text(connection, requests.stream().map(r -> r.reply().text()).toList()));
            insert.setArray(at.next(), SqlArrays.bigint(connection, requests.stream().map(RequestEntry::offset).toList()));
            insert.setArray(at.next(), SqlArrays.bigint(connection,
                    requests.stream().map(r -> r.appliedAt().toEpochMilli()).toList()));
            insert.setArray(at.next(), SqlArrays.bigint(connection, requests.stream().map(RequestEntry::decidedAt).toList()));
        }, Script.exactly(requests.size(), "request entries on " + partition + " written concurrently"));
    }

    private void insertEvents(Script script, List<EventEntry> events) {
        if (events.isEmpty()) {
            return;
        }
        script.add(INSERT_EVENTS, (insert, at) -> {
            insert.setString(at.next(), partition.topic());
            insert.setInt(at.next(), partition.partition());
            insert.setArray(at.next(), SqlArrays.bigint(connection, events.stream().map(EventEntry::offset).toList()));
            insert.setArray(at.next(), SqlArrays.integer(connection, events.stream().map(EventEntry::index).toList()));
            insert.setArray(at.next(), SqlArrays.text(connection, events.stream().map(EventEntry::resource).toList()));
            insert.setArray(at.next(), SqlArrays.text(connection, events.stream().map(EventEntry::value).toList()));
        }, Script.exactly(events.size(), "lease events on " + partition + " written concurrently"));
    }

    private void insertTransfers(Script script, List<Outbound.Transfer> transfers) {
        if (transfers.isEmpty()) {
            return;
        }
        List<Integer> indexes = new java.util.ArrayList<>(transfers.size());
        for (int i = 0; i < transfers.size(); i++) {
            boolean sameRecord = i > 0 && transfers.get(i - 1).source().offset() == transfers.get(i).source().offset();
            indexes.add(sameRecord ? indexes.get(i - 1) + 1 : 0);
        }
        script.add(GrowthRows.INSERT, (insert, at) -> {
            insert.setString(at.next(), partition.topic());
            insert.setInt(at.next(), partition.partition());
            insert.setArray(at.next(), SqlArrays.bigint(connection,
                    transfers.stream().map(t -> t.source().offset()).toList()));
            insert.setArray(at.next(), SqlArrays.integer(connection, indexes));
            insert.setArray(at.next(), SqlArrays.integer(connection,
                    transfers.stream().map(Outbound.Transfer::partition).toList()));
            insert.setArray(at.next(), SqlArrays.text(connection,
                    transfers.stream().map(t -> t.key().orElse(null)).toList()));
            insert.setArray(at.next(), SqlArrays.text(connection, transfers.stream().map(Outbound.Transfer::header).toList()));
            insert.setArray(at.next(), connection.createArrayOf("bytea",
                    transfers.stream().map(Outbound.Transfer::headerValue).toArray(byte[][]::new)));
            insert.setArray(at.next(), connection.createArrayOf("bytea",
                    transfers.stream().map(Outbound.Transfer::value).toArray(byte[][]::new)));
        }, Script.exactly(transfers.size(), "growth transfers on " + partition + " written concurrently"));
    }

    private StoreException fail(String what, SQLException e) {
        return new StoreException(what + " on " + partition + " failed: " + e.getMessage(), e);
    }
}
