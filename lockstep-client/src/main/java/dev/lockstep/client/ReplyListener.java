package dev.lockstep.client;

import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.ReplyDecoder.ReplyMessage;
import dev.lockstep.protocol.ReplyDecoder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
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
 * again after a worker crash, or one that arrives after its timeout) are ignored.
 */
final class ReplyListener implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReplyListener.class);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final TopicPartition partition;
    private final PendingReplies pending = new PendingReplies();
    private final Thread thread;
    private volatile boolean running = true;

    private ReplyListener(KafkaConsumer<byte[], byte[]> consumer, TopicPartition partition) {
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
            ReplyListener listener = new ReplyListener(consumer, tp);
            listener.thread.start();
            return listener;
        } catch (KafkaException | LockClientException e) {
            consumer.close(Duration.ZERO);
            if (e instanceof org.apache.kafka.common.errors.TimeoutException) {
                throw new LockClientException("no answer from Kafka at " + kafka.bootstrapServers() + " about topic "
                        + topic + " (is the broker running, and were the topics created with 'lockstep topics apply'?)", e);
            }
            throw e;
        }
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

    private void pollLoop() {
        try {
            while (running) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    ReplyDecoder.decode(record.value()).ifPresentOrElse(pending::deliver,
                            () -> LOG.debug("ignoring a record that is not a lockstep reply at {}@{}", partition,
                                    record.offset()));
                }
            }
        } catch (WakeupException e) {
            // close() was called
        } catch (RuntimeException e) {
            LOG.error("reply listener on {} failed; pending requests will time out", partition, e);
        } finally {
            // No group, no commits: nothing to finish. A graceful close would wait for the fetch in
            // flight (up to fetch.max.wait.ms, half a second), which every one-shot command paid.
            consumer.close(Duration.ZERO);
        }
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
