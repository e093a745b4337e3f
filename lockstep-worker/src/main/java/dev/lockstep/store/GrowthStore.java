package dev.lockstep.store;

import dev.lockstep.engine.Layout;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the worker's growth keeper asks of the database (docs/architecture.md, "Growing the
 * command topic"): how each partition routes, the growths started, and the carries and takens
 * not yet sent. None of it decides anything: the records in the log do.
 */
public interface GrowthStore {

    /** A growth a worker started sealing for. */
    record TopicGrowth(int from, int to, Instant startedAt, Optional<Instant> finishedAt) {
    }

    /** A carry or taken a seal's batch stored, to append to partition {@code to}. */
    record PendingTransfer(int partition, long offset, int index, int to, Optional<String> key, String header,
            byte[] headerValue, byte[] value) {
    }

    /** Each started partition's layout, by partition. */
    Map<Integer, Layout> layouts(String topic);

    /** The growths started, oldest first. */
    List<TopicGrowth> growths(String topic);

    /** Records a growth from {@code from} to {@code to}, unless one from {@code from} was: the one recorded. */
    TopicGrowth startGrowth(String topic, int from, int to);

    /** The growth from {@code from} finished: every partition routes by its count, none awaits another. */
    void growthFinished(String topic, int from);

    /** The transfers not yet sent from {@code partitions}, in order. */
    List<PendingTransfer> transfersDue(String topic, Collection<Integer> partitions);

    /** The broker acknowledged these where they go: they are not sent again. */
    void transfersSent(String topic, Collection<PendingTransfer> sent);
}
