package dev.lockstep.worker;

import dev.lockstep.engine.Layout;
import dev.lockstep.protocol.Growth;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.store.GrowthStore;
import dev.lockstep.store.GrowthStore.PendingTransfer;
import dev.lockstep.store.GrowthStore.TopicGrowth;
import dev.lockstep.store.StoreException;
import java.nio.charset.StandardCharsets;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a growth of the command topic going (docs/architecture.md, "Growing the command topic"):
 * it finds the topic has more partitions than its partitions route by, records the growth, and
 * appends a seal to every partition; it sends the carries and takens its partitions' seals asked
 * for, the takens only once every carry before them was acknowledged; and it records the growth
 * finished once every partition routes by the new count and awaits nothing.
 *
 * <p>Nothing here decides: the seals, carries and takens do, where they land in the log. Every
 * worker does it; one's seal after another's, or a carry sent again, changes nothing. Runs on a
 * thread of its own, off the command path.
 */
final class GrowthKeeper implements AutoCloseable {

    /** How often it sends what is due. */
    static final Duration INTERVAL = Duration.ofMillis(250);
    /** How often it looks at the topic's partition count: a growth starts within about this. */
    static final Duration LOOK_EVERY = Duration.ofSeconds(1);
    /** A partition whose seal is not applied by then gets another. */
    static final Duration SEAL_AGAIN_AFTER = Duration.ofSeconds(5);
    private static final Duration SEND_TIMEOUT = Duration.ofSeconds(30);

    private static final Logger LOG = LoggerFactory.getLogger(GrowthKeeper.class);

    private final GrowthStore store;
    private final Producer<byte[], byte[]> producer;
    private final Admin admin;
    private final TopicNames topics;
    private final AssignedPartitions assigned;
    private final LongSupplier nanos;
    private final WorkerHealth health;
    private volatile Optional<Instant> lastFinished = Optional.empty();
    private final Map<Integer, Long> sealedAt = new HashMap<>();
    private long lookedAt;
    private volatile Optional<TopicGrowth> underWay = Optional.empty();
    private ScheduledExecutorService executor;

    /** @param nanos the monotonic clock: when to look again, when to seal again */
    GrowthKeeper(GrowthStore store, Producer<byte[], byte[]> producer, Admin admin, TopicNames topics,
            AssignedPartitions assigned, LongSupplier nanos, WorkerHealth health) {
        this.health = health;
        this.store = store;
        this.producer = producer;
        this.admin = admin;
        this.topics = topics;
        this.assigned = assigned;
        this.nanos = nanos;
        this.lookedAt = nanos.getAsLong() - LOOK_EVERY.toNanos();
    }

    void start() {
        executor = AssignedPartitions.every(INTERVAL, "lockstep-growth", this::round);
    }

    /** The growth started and not yet finished, as last looked at. */
    Optional<TopicGrowth> underWay() {
        return underWay;
    }

    /** Gauges: whether a growth is under way, and when the last one finished. */
    void bindTo(MeterRegistry registry) {
        Gauge.builder("lockstep.growth.under.way", this, keeper -> keeper.underWay().isPresent() ? 1 : 0)
                .description("1 while a growth of the command topic is under way (lockstep topics status), else 0")
                .register(registry);
        Gauge.builder("lockstep.growth.finished", this,
                keeper -> keeper.lastFinished.map(at -> at.toEpochMilli() / 1000.0).orElse(Double.NaN))
                .baseUnit("seconds")
                .description("When the last growth of the command topic finished (Unix time); NaN before any")
                .register(registry);
    }

    /** One round: what is due sent, and every {@link #LOOK_EVERY} the topic looked at. */
    synchronized void round() {
        try {
            send();
            if (nanos.getAsLong() - lookedAt >= LOOK_EVERY.toNanos()) {
                lookedAt = nanos.getAsLong();
                look();
            }
        } catch (StoreException | KafkaException e) {
            LOG.debug("a round of the growth keeper failed, the next follows: {}", e.getMessage());
        } catch (RuntimeException e) {
            // The schedule stops for good on a task that throws: a growth would never finish.
            LOG.warn("a round of the growth keeper failed, the next follows: {}", e.toString());
        }
    }

    /**
     * The carries due from this worker's partitions, then each taken whose carries were all
     * acknowledged (one that came before a carry it follows would let its partition decide a
     * resource without its state); each only once its partition applied its own seal.
     */
    private void send() {
        List<PendingTransfer> pending = store.transfersDue(topics.commands(), assigned.now());
        if (pending.isEmpty()) {
            return;
        }
        // Only to a partition that applied its seal: before it, a carry or taken would be refused there.
        Map<Integer, Layout> layouts = store.layouts(topics.commands());
        List<PendingTransfer> due = pending.stream().filter(t -> layouts.containsKey(t.to())
                && layouts.containsKey(t.partition())
                && layouts.get(t.to()).partitions() >= layouts.get(t.partition()).partitions()).toList();
        List<PendingTransfer> carries = due.stream().filter(t -> t.header().equals(Growth.CARRY)).toList();
        List<PendingTransfer> sent = sendAll(carries);
        store.transfersSent(topics.commands(), sent);
        Set<String> waiting = new HashSet<>();
        carries.stream().filter(carry -> !sent.contains(carry))
                .forEach(carry -> waiting.add(carry.partition() + "@" + carry.offset() + ">" + carry.to()));
        List<PendingTransfer> takens = due.stream().filter(t -> t.header().equals(Growth.TAKEN))
                .filter(t -> !waiting.contains(t.partition() + "@" + t.offset() + ">" + t.to())).toList();
        store.transfersSent(topics.commands(), sendAll(takens));
    }

    /** Sends each and waits for their acknowledgements: those acknowledged. */
    private List<PendingTransfer> sendAll(List<PendingTransfer> transfers) {
        List<Future<?>> sends = new ArrayList<>(transfers.size());
        for (PendingTransfer transfer : transfers) {
            RecordHeaders headers = new RecordHeaders();
            headers.add(transfer.header(), transfer.headerValue());
            sends.add(producer.send(new ProducerRecord<>(topics.commands(), transfer.to(), null,
                    transfer.key().map(key -> key.getBytes(StandardCharsets.UTF_8)).orElse(null),
                    transfer.value().length == 0 ? null : transfer.value(), headers)));
        }
        List<PendingTransfer> acknowledged = new ArrayList<>(transfers.size());
        for (int i = 0; i < sends.size(); i++) {
            try {
                sends.get(i).get(SEND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                acknowledged.add(transfers.get(i));
            } catch (ExecutionException | TimeoutException e) {
                LOG.info("a growth's transfer to partition {} was not acknowledged, it is sent again: {}",
                        transfers.get(i).to(), e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return acknowledged;
    }

    /**
     * Finishes the growth under way once done; seals what it has not sealed; and when none is
     * under way and the topic has more partitions than its partitions route by, starts one.
     */
    private void look() {
        Map<Integer, Layout> layouts = store.layouts(topics.commands());
        List<TopicGrowth> growths = store.growths(topics.commands());
        lastFinished = growths.stream().flatMap(g -> g.finishedAt().stream()).max(Instant::compareTo);
        Optional<TopicGrowth> open = growths.stream().filter(g -> g.finishedAt().isEmpty()).findFirst();
        if (open.isPresent() && done(open.get(), layouts)) {
            store.growthFinished(topics.commands(), open.get().from());
            LOG.info("the command topic's growth from {} to {} partitions finished", open.get().from(), open.get().to());
            open = Optional.empty();
        }
        if (open.isEmpty()) {
            open = start(layouts);
        }
        underWay = open;
        health.growth(open.map(growth -> "the command topic grows from " + growth.from() + " to " + growth.to()
                + " partitions since " + growth.startedAt() + "; partitions not yet done: " + notDone(growth, layouts)));
        open.ifPresent(growth -> seal(growth, layouts));
    }

    private static boolean done(TopicGrowth growth, Map<Integer, Layout> layouts) {
        return notDone(growth, layouts).isEmpty();
    }

    /** The partitions not yet routing by the new count, or still awaiting resources. */
    private static List<Integer> notDone(TopicGrowth growth, Map<Integer, Layout> layouts) {
        List<Integer> notDone = new ArrayList<>();
        for (int p = 0; p < growth.to(); p++) {
            Layout layout = layouts.get(p);
            if (layout == null || layout.partitions() != growth.to() || layout.growing()) {
                notDone.add(p);
            }
        }
        return notDone;
    }

    /**
     * A growth from the count every partition routes by to the count the cluster has, when larger,
     * once the events topic has as many (each command's events go to the partition of its number).
     */
    private Optional<TopicGrowth> start(Map<Integer, Layout> layouts) {
        Layout first = layouts.get(0);
        if (first == null) {
            return Optional.empty();
        }
        int from = first.partitions();
        for (int p = 0; p < from; p++) {
            Layout layout = layouts.get(p);
            if (layout == null || layout.partitions() != from || layout.growing()) {
                return Optional.empty();
            }
        }
        int to = partitions(topics.commands());
        if (to <= from) {
            return Optional.empty();
        }
        int events = partitions(topics.events());
        if (events < to) {
            LOG.warn("the command topic has {} partitions and its partitions route by {}; the growth waits for the "
                    + "events topic {} to have as many (it has {}): lockstep topics grow --partitions {}", to, from,
                    topics.events(), events, to);
            return Optional.empty();
        }
        TopicGrowth growth = store.startGrowth(topics.commands(), from, to);
        LOG.info("the command topic grows from {} to {} partitions: sealing each", growth.from(), growth.to());
        return Optional.of(growth);
    }

    /** A seal to each partition not yet routing by the new count, again if it was not applied for a while. */
    private void seal(TopicGrowth growth, Map<Integer, Layout> layouts) {
        long now = nanos.getAsLong();
        for (int p = 0; p < growth.to(); p++) {
            Layout layout = layouts.get(p);
            Long last = sealedAt.get(p);
            boolean routed = layout != null && layout.partitions() >= growth.to();
            if (routed || last != null && now - last < SEAL_AGAIN_AFTER.toNanos()) {
                continue;
            }
            RecordHeaders headers = new RecordHeaders();
            headers.add(Growth.SEAL, Growth.sealHeader(growth.from(), growth.to()));
            producer.send(new ProducerRecord<>(topics.commands(), p, null, null, null, headers));
            sealedAt.put(p, now);
        }
    }

    private int partitions(String topic) {
        try {
            return admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic)
                    .partitions().size();
        } catch (ExecutionException | TimeoutException e) {
            throw new KafkaException("describing " + topic + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted describing " + topic, e);
        }
    }

    @Override
    public void close() {
        if (executor != null) {
            executor.shutdownNow();
        }
    }
}
