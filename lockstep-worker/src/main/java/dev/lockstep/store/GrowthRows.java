package dev.lockstep.store;

import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.Layout;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import javax.sql.DataSource;

/** The statements of {@link GrowthStore}, and the batch's insert of its transfers. */
final class GrowthRows {

    static final String INSERT = "INSERT INTO growth_transfers (topic, partition, record_offset, transfer_index, "
            + "to_partition, record_key, header, header_value, value) SELECT ?, ?, off, idx, dest, k, h, hv, v "
            + "FROM unnest(?::bigint[], ?::integer[], ?::integer[], ?::text[], ?::text[], ?::bytea[], ?::bytea[]) "
            + "AS u(off, idx, dest, k, h, hv, v)";
    private static final String DUE = "SELECT partition, record_offset, transfer_index, to_partition, record_key, header, "
            + "header_value, value FROM growth_transfers WHERE topic = ? AND partition = ANY(?) "
            + "ORDER BY partition, record_offset, transfer_index";
    private static final String SENT = "DELETE FROM growth_transfers WHERE topic = ? AND (partition, record_offset, "
            + "transfer_index) IN (SELECT * FROM unnest(?::integer[], ?::bigint[], ?::integer[]))";
    private static final String LAYOUTS = "SELECT partition, layout, settings FROM partition_progress WHERE topic = ?";
    private static final String GROWTHS = "SELECT from_count, to_count, started_at, finished_at FROM topic_growths "
            + "WHERE topic = ? ORDER BY from_count";
    private static final String START = "INSERT INTO topic_growths (topic, from_count, to_count) VALUES (?, ?, ?) "
            + "ON CONFLICT (topic, from_count) DO NOTHING";
    private static final String FINISHED = "UPDATE topic_growths SET finished_at = now() "
            + "WHERE topic = ? AND from_count = ? AND finished_at IS NULL";

    private GrowthRows() {
    }

    static Map<Integer, Layout> layouts(DataSource dataSource, String topic) {
        Map<Integer, Layout> layouts = new TreeMap<>();
        TopicQueries.rows(dataSource, LAYOUTS, (connection, select) -> select.setString(1, topic), rs -> {
            Optional<String> settings = Optional.ofNullable(rs.getString(3));
            Optional<Layout> layout = Optional.ofNullable(rs.getString(2)).map(Layout::parse)
                    .or(() -> settings.map(EngineSettings::parse).map(recorded -> Layout.of(recorded.partitions())));
            return Map.entry(rs.getInt(1), layout);
        }, "reading the partitions' layouts").forEach(row -> row.getValue().ifPresent(l -> layouts.put(row.getKey(), l)));
        return layouts;
    }

    static List<GrowthStore.TopicGrowth> growths(DataSource dataSource, String topic) {
        return TopicQueries.rows(dataSource, GROWTHS, (connection, select) -> select.setString(1, topic),
                rs -> new GrowthStore.TopicGrowth(rs.getInt(1), rs.getInt(2), SqlArrays.instant(rs, 3),
                        SqlArrays.optionalInstant(rs, 4)), "reading the growths");
    }

    static GrowthStore.TopicGrowth start(DataSource dataSource, String topic, int from, int to) {
        update(dataSource, START, select -> {
            select.setString(1, topic);
            select.setInt(2, from);
            select.setInt(3, to);
        }, "recording a growth");
        return growths(dataSource, topic).stream().filter(g -> g.from() == from).findFirst().orElseThrow();
    }

    static void finished(DataSource dataSource, String topic, int from) {
        update(dataSource, FINISHED, select -> {
            select.setString(1, topic);
            select.setInt(2, from);
        }, "recording a growth's end");
    }

    static List<GrowthStore.PendingTransfer> due(DataSource dataSource, String topic, Collection<Integer> partitions) {
        if (partitions.isEmpty()) {
            return List.of();
        }
        return TopicQueries.rows(dataSource, DUE, (connection, select) -> {
            select.setString(1, topic);
            select.setArray(2, SqlArrays.integer(connection, partitions));
        }, rs -> new GrowthStore.PendingTransfer(rs.getInt(1), rs.getLong(2), rs.getInt(3), rs.getInt(4),
                Optional.ofNullable(rs.getString(5)), rs.getString(6), rs.getBytes(7), rs.getBytes(8)),
                "reading the transfers due");
    }

    static void sent(DataSource dataSource, String topic, Collection<GrowthStore.PendingTransfer> sent) {
        if (sent.isEmpty()) {
            return;
        }
        try (Connection connection = dataSource.getConnection();
                PreparedStatement delete = connection.prepareStatement(SENT)) {
            delete.setString(1, topic);
            delete.setArray(2, SqlArrays.integer(connection, sent.stream().map(GrowthStore.PendingTransfer::partition).toList()));
            delete.setArray(3, SqlArrays.bigint(connection, sent.stream().map(GrowthStore.PendingTransfer::offset).toList()));
            delete.setArray(4, SqlArrays.integer(connection, sent.stream().map(GrowthStore.PendingTransfer::index).toList()));
            delete.executeUpdate();
            connection.commit();
        } catch (SQLException e) {
            throw new StoreException("forgetting the transfers sent failed: " + e.getMessage(), e);
        }
    }

    @FunctionalInterface
    private interface Binding {
        void bind(PreparedStatement statement) throws SQLException;
    }

    private static void update(DataSource dataSource, String sql, Binding binding, String what) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(sql)) {
            binding.bind(statement);
            statement.executeUpdate();
            connection.commit();
        } catch (SQLException e) {
            throw new StoreException(what + " failed: " + e.getMessage(), e);
        }
    }
}
