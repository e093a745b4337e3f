package dev.lockstep.worker;

import dev.lockstep.protocol.CommandDecoder;
import dev.lockstep.store.LockStore;
import dev.lockstep.store.PartitionId;
import dev.lockstep.store.StoreException;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker loop: poll the command topic, apply each partition's records in one transaction,
 * publish the replies, and commit the offsets once the broker acknowledged them.
 *
 * <p>Nothing is skipped: a batch that fails (database down, broker not acknowledging) is rewound
 * and retried with backoff, and the progress row in the database makes a retried or redelivered
 * record harmless. {@link #run()} blocks the calling thread; {@link #stop()} asks it to finish
 * the batch in hand, commit, and return.
 *
 * <pre>{@code
 * try (LockStore store = PostgresLockStore.open(DatabaseSettings.of(url));
 *      Worker worker = Worker.connect(WorkerSettings.defaults(KafkaSettings.of("127.0.0.1:9092")), store,
 *              Clock.systemUTC())) {
 *     worker.checkTopics();
 *     worker.run(); // until worker.stop() is called from another thread
 * }
 * }</pre>
 */
public final class Worker implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Worker.class);
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(200);

    private final WorkerSettings settings;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final KafkaProducer<byte[], byte[]> producer;
    private final Admin admin;
    private final BatchProcessor processor;
    private final OutboundPublisher publisher;
    private final Sweeper sweeper;
    private final Backoff backoff = new Backoff();
    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);

    private Worker(WorkerSettings settings, KafkaConsumer<byte[], byte[]> consumer,
            KafkaProducer<byte[], byte[]> producer, Admin admin, BatchProcessor processor, Sweeper sweeper) {
        this.sweeper = sweeper;
        this.settings = settings;
        this.consumer = consumer;
        this.producer = producer;
        this.admin = admin;
        this.processor = processor;
        this.publisher = new OutboundPublisher(producer, settings.topics().deadLetters());
    }

    /** Creates the Kafka clients (which start their own I/O threads); does not poll yet. */
    public static Worker connect(WorkerSettings settings, LockStore store, Clock clock) {
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(settings.kafka().with(Map.of(
                ConsumerConfig.GROUP_ID_CONFIG, settings.groupId(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500)),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(settings.kafka().with(Map.of(
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.LINGER_MS_CONFIG, 1,
                // Surface an unreachable broker within 30 s so the batch is rewound and retried.
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000)),
                new ByteArraySerializer(), new ByteArraySerializer());
        Admin admin = Admin.create(settings.kafka().with(Map.of()));
        ReplyRouter router = new ReplyRouter(settings.topics().replies(), settings.replyTopics(),
                new AdminTopicCatalog(admin, clock));
        Triage triage = new Triage(new CommandDecoder(settings.limits()), router);
        return new Worker(settings, consumer, producer, admin, new BatchProcessor(store, triage, clock),
                new Sweeper(store, settings.retention(), clock));
    }

    /**
     * Refuses to start without the protocol's topics, naming the command that creates them, and
     * warns when the command topic does not stamp log-append time.
     */
    public void checkTopics() {
        new TopicCheck(admin, settings.topics()).verify();
    }

    public void run() {
        LOG.info("worker starting: {}, topics {}, group {}, reply allow-list {}, limits {}, retention {}",
                settings.kafka(), settings.topics(), settings.groupId(), settings.replyTopics().entries(),
                settings.limits(), settings.retention());
        sweeper.start();
        consumer.subscribe(List.of(settings.topics().commands()), new RebalanceLog());
        try {
            while (stopRequested.getCount() > 0) {
                pollOnce();
            }
        } finally {
            LOG.info("worker stopped");
            stopped.countDown();
        }
    }

    private void pollOnce() {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL_TIMEOUT);
        if (records.isEmpty()) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>();
        boolean failed = false;
        for (TopicPartition tp : records.partitions()) {
            List<ConsumerRecord<byte[], byte[]>> batch = records.records(tp);
            try {
                List<Outbound> out = processor.process(new PartitionId(tp.topic(), tp.partition()),
                        batch.stream().map(Inbound::of).toList());
                publisher.publishAll(out);
                done.put(tp, new OffsetAndMetadata(batch.get(batch.size() - 1).offset() + 1));
            } catch (StoreException | KafkaException e) {
                LOG.error("batch {} offsets {}..{} failed, will retry: {}", tp, batch.get(0).offset(),
                        batch.get(batch.size() - 1).offset(), e.getMessage());
                consumer.seek(tp, batch.get(0).offset());
                failed = true;
            }
        }
        commit(done);
        if (failed) {
            pause(backoff.next());
        } else {
            backoff.reset();
        }
    }

    private void commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
        if (offsets.isEmpty()) {
            return;
        }
        try {
            consumer.commitSync(offsets);
        } catch (KafkaException e) {
            // The batch is applied and answered; the database's progress row makes a redelivery
            // harmless, so a lost commit only costs replies sent again.
            LOG.warn("committing offsets {} failed (records will be redelivered and answered again): {}", offsets,
                    e.getMessage());
        }
    }

    private void pause(Duration delay) {
        try {
            stopRequested.await(delay.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopRequested.countDown();
        }
    }

    /** Asks {@link #run()} to return after the batch in hand; safe from any thread. */
    public void stop() {
        stopRequested.countDown();
    }

    /** Waits for {@link #run()} to return after {@link #stop()}. */
    public boolean awaitStopped(Duration timeout) throws InterruptedException {
        return stopped.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        sweeper.close();
        consumer.close();
        producer.close();
        admin.close();
    }

    private final class RebalanceLog implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            LOG.info("partitions assigned: {}", partitions);
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            // Batches run inside poll's caller, so none is in flight here; nothing to hand over.
            LOG.info("partitions revoked: {}", partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            LOG.warn("partitions lost (another worker may own them now): {}", partitions);
        }
    }
}
