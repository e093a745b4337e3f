package dev.lockstep.client;

import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.ReplyDecoder.ReplyMessage;
import dev.lockstep.protocol.ReplyDecoder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one partition of the reply topic on its own thread and completes the future waiting for
 * each reply. Replies for request IDs nobody waits for (another instance's, a duplicate sent
 * again after a worker crash, or one that arrives after its timeout) are ignored, and so is a
 * record that cannot be delivered. When the consumer itself fails, the reader ends and every
 * request fails from then on ({@link LockClient#failure()}).
 */
final class ReplyListener implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReplyListener.class);

    private final Consumer<byte[], byte[]> consumer;
    private final TopicPartition partition;
    private final PendingReplies pending = new PendingReplies();
    private final Thread thread;
    private volatile boolean running = true;
    /** Whether the reader is to stay away from its partition (see {@link #away}), and when the poll thread did so. */
    private volatile boolean away;
    private volatile CompletableFuture<Void> wentAway = CompletableFuture.completedFuture(null);

    private ReplyListener(Consumer<byte[], byte[]> consumer, TopicPartition partition) {
        this.consumer = consumer;
        this.partition = partition;
        this.thread = new Thread(this::pollLoop, "lockstep-replies-" + partition);
        this.thread.setDaemon(true);
    }

    /**
     * Positions a consumer at the end of the chosen reply partition, so that every reply to a
     * command sent from now on is seen, then starts reading.
     */
    static ReplyListener start(KafkaSettings kafka, String topic, OptionalInt wanted, Duration metadataTimeout) {
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(kafka.with(Map.of(
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) metadataTimeout.toMillis())),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
        try {
            List<PartitionInfo> partitions = partitionsOf(consumer, topic, metadataTimeout);
            if (partitions.isEmpty()) {
                throw new LockClientException("reply topic " + topic + " does not exist "
                        + "(create the topics with 'lockstep topics apply')");
            }
            int chosen = wanted.orElse(partitions.get(ThreadLocalRandom.current().nextInt(partitions.size())).partition());
            if (chosen >= partitions.size()) {
                throw new LockClientException("reply topic " + topic + " has no partition " + chosen);
            }
            TopicPartition tp = new TopicPartition(topic, chosen);
            consumer.assign(List.of(tp));
            consumer.seekToEnd(List.of(tp));
            consumer.position(tp, metadataTimeout);
            return listen(consumer, tp);
        } catch (KafkaException | LockClientException e) {
            consumer.close(Duration.ZERO);
            if (e instanceof org.apache.kafka.common.errors.TimeoutException) {
                throw new LockClientException("no answer from Kafka at " + kafka.bootstrapServers() + " about topic "
                        + topic + " (is the broker running, and were the topics created with 'lockstep topics apply'?)", e);
            }
            throw e;
        }
    }

    /** Starts reading {@code partition}, to which {@code consumer} is assigned and positioned. */
    static ReplyListener listen(Consumer<byte[], byte[]> consumer, TopicPartition partition) {
        ReplyListener listener = new ReplyListener(consumer, partition);
        listener.thread.start();
        return listener;
    }

    /** A topic created a moment ago may not be in every broker's metadata yet: ask again until the timeout. */
    private static List<PartitionInfo> partitionsOf(KafkaConsumer<byte[], byte[]> consumer, String topic,
            Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<PartitionInfo> partitions = consumer.partitionsFor(topic, timeout);
        while (partitions.isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            partitions = consumer.partitionsFor(topic, timeout);
        }
        return partitions;
    }

    int partition() {
        return partition.partition();
    }

    /** The future for this request's reply; see {@link PendingReplies}. */
    CompletableFuture<ReplyMessage> expect(String requestId, Expected expected, byte[] command) {
        return pending.expect(requestId, expected, command);
    }

    int waiting() {
        return pending.size();
    }

    /** Why no reply can be read any more: see {@link LockClient#failure()}. */
    Optional<LockClientException> failure() {
        return pending.failure();
    }

    /**
     * Keeps the reader away from its partition ({@code true}: it fetches nothing, as a consumer in
     * a group does while it rejoins) or brings it back, where it was: replies published meanwhile
     * are read then. For the protocol cases every client passes (clients/cases.json, "rejoin").
     */
    void away(boolean stayAway) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        // In this order, and read in the other: a poll that takes this future sees this state.
        away = stayAway;
        wentAway = done;
        // Back from here, the reader is away (or back): replies published from now on wait for it.
        done.orTimeout(5, TimeUnit.SECONDS).join();
    }

    private void pollLoop() {
        try {
            while (running) {
                // The consumer is the poll thread's alone: pausing is done here, never by the caller.
                CompletableFuture<Void> asked = wentAway;
                boolean stayAway = away;
                if (stayAway != consumer.paused().contains(partition)) {
                    if (stayAway) {
                        consumer.pause(List.of(partition));
                    } else {
                        consumer.resume(List.of(partition));
                    }
                }
                asked.complete(null);
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    deliver(record);
                }
            }
        } catch (WakeupException e) {
            // close() was called
        } catch (RuntimeException | Error e) {
            // The consumer cannot go on (a batch it cannot read, an authorization withdrawn): no reply will be
            // read again, so nobody is left to wait for one.
            LOG.error("the reply reader on {} failed: every request of this client fails from now on", partition, e);
            pending.failAll(new LockClientException("the reply reader on " + partition + " failed, so no reply can "
                    + "be read (start another client): " + e, e));
            if (e instanceof Error error) {
                throw error;
            }
        } finally {
            // No group, no commits: nothing to finish. A graceful close would wait for the fetch in
            // flight (up to fetch.max.wait.ms, half a second), which every one-shot command paid.
            consumer.close(Duration.ZERO);
        }
    }

    /** A record that is no reply, or that cannot be delivered, is skipped: one bad record does not end the reader. */
    private void deliver(ConsumerRecord<byte[], byte[]> record) {
        try {
            ReplyDecoder.decode(record.value()).ifPresentOrElse(pending::deliver,
                    () -> LOG.debug("ignoring a record that is not a lockstep reply at {}@{}", partition,
                            record.offset()));
        } catch (RuntimeException e) {
            LOG.warn("skipping the record at {}@{}: it could not be delivered", partition, record.offset(), e);
        }
    }

    /** Fails every request waiting for a reply, and every later one: the client closes. */
    void stopWaiting() {
        pending.failAllNow(new LockClientException("the client is closed: no reply will be read"));
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
