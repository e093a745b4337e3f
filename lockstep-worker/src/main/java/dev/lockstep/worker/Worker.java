package dev.lockstep.worker;

import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.Layout;
import dev.lockstep.engine.PartitionMachine;
import dev.lockstep.metrics.WorkerMetrics;
import dev.lockstep.store.LockStore;
import dev.lockstep.store.PartitionId;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.InvalidOffsetException;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker loop: poll the command topic, apply each partition's records in one transaction,
 * publish the replies, and commit the offsets once the broker acknowledged them.
 *
 * <p>Nothing is skipped: a partition starts where the database says it stands (not where the
 * group's committed offset says), a batch that fails (database down, broker not acknowledging) is
 * rewound and retried with backoff, and the progress row in the database makes a retried or
 * redelivered record harmless. {@link #run()} blocks the calling thread; {@link #stop()} asks it to finish
 * the batch in hand, commit, and return.
 *
 * <pre>{@code
 * try (LockStore store = PostgresLockStore.open(DatabaseSettings.of(url));
 *      Worker worker = Worker.connect(WorkerSettings.defaults(KafkaSettings.of("127.0.0.1:9092")), store,
 *              Clock.systemUTC(), new SimpleMeterRegistry())) {
 *     worker.checkTopics();
 *     worker.run(); // until worker.stop() is called from another thread
 * }
 * }</pre>
 */
public final class Worker implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Worker.class);
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(200);
    /** While batches run, poll often: a finished batch's partition is resumed on the next poll. */
    private static final Duration BUSY_POLL_TIMEOUT = Duration.ofMillis(2);

    private final WorkerSettings settings;
    private final LockStore store;
    private final Clock wall;
    private final Clock clock;
    private final Applying applying;
    private final Consumer<byte[], byte[]> consumer;
    /** How long a stopping worker goes on applying its own last ticks. */
    private static final Duration DRAIN = Duration.ofSeconds(3);

    private final Producer<byte[], byte[]> producer;
    private final Admin admin;
    private final OutboundPublisher publisher;
    private final Sweeper sweeper;
    private final Ticker ticker;
    private final GrowthKeeper growth;
    private final LogTimes logTimes;
    private final StuckTransactions transactions;
    /** Told of every assignment and revocation: what the ticker and the transaction watch look at. */
    private final AssignedPartitions assigned;
    private final WorkerMetrics metrics;
    private final WorkerHealth health;
    private final Instruments instruments;
    private final Backoff backoff = new Backoff();
    private final OffsetCommits commits;
    private final Backlog backlog = new Backlog();
    /** Below these offsets every reply was acknowledged; saved with the next batch of the partition. */
    private final Map<PartitionId, Long> acknowledged = new ConcurrentHashMap<>();
    private RecordProcessor processor;
    private Assignments assignments;
    private Settlement settlement;
    private PartitionPipeline pipeline;
    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);

    private Worker(WorkerSettings settings, LockStore store, Clock wall, Applying applying, MeterRegistry registry,
            Consumer<byte[], byte[]> consumer, Producer<byte[], byte[]> producer,
            Admin admin) {
        this.settings = settings;
        this.store = store;
        this.wall = wall;
        // What the worker times are intervals: on the monotonic clock, which no one steps.
        this.clock = SteadyClock.startingAt(wall, System::nanoTime);
        this.applying = applying;
        this.consumer = consumer;
        this.producer = producer;
        this.admin = admin;
        this.commits = new OffsetCommits(consumer);
        this.metrics = new WorkerMetrics(registry, wall);
        this.health = new WorkerHealth(clock, WorkerClients.maxPollInterval(settings), settings.stallTimeout(), store,
                settings.topics().commands());
        this.publisher = new OutboundPublisher(producer, settings.topics(), new AdminTopicCatalog(admin, clock),
                WorkerClients.maxRequestSize(settings), metrics, health);
        this.sweeper = new Sweeper(store, settings.retention());
        this.logTimes = new LogTimes(wall, System::nanoTime);
        this.assigned = new AssignedPartitions();
        this.ticker = new Ticker(store, producer, settings.topics().commands(), assigned, clock, logTimes,
                new ClockWatch(logTimes, ClockWatch.leaders(admin, settings.topics().commands()),
                        settings.topics().commands(), clock, registry, health), metrics);
        this.growth = new GrowthKeeper(store, producer, admin, settings.topics(), assigned, System::nanoTime, health);
        growth.bindTo(registry);
        this.transactions = new StuckTransactions(admin, settings.topics().commands(), assigned,
                settings.transactionLimit(), clock, System::nanoTime, registry, health);
        this.instruments = Instruments.bind(registry, consumer, producer, health, store, settings.topics().commands());
    }

    /**
     * Creates the Kafka clients (which start their own I/O threads), with the worker's meters on
     * {@code registry} (docs/operations.md); does not poll yet.
     */
    public static Worker connect(WorkerSettings settings, LockStore store, Clock clock, MeterRegistry registry) {
        return connect(settings, store, clock, Applying.BATCHES, registry);
    }

    /**
     * As {@link #connect(WorkerSettings, LockStore, Clock, MeterRegistry)}, applying batches with
     * {@code applying} (a benchmark's baseline; {@link Applying#BATCHES} otherwise).
     *
     * @param clock the wall clock: compared with log-append times (metrics, clock warnings); what the
     *     worker times (caches, timeouts) runs on the monotonic clock from this clock's reading at
     *     start ({@link SteadyClock}). No reply depends on either
     */
    public static Worker connect(WorkerSettings settings, LockStore store, Clock clock, Applying applying,
            MeterRegistry registry) {
        return new Worker(settings, store, clock, applying, registry, WorkerClients.consumer(settings),
                WorkerClients.producer(settings), WorkerClients.admin(settings));
    }

    /** Whether the worker is alive and ready, for the HTTP server's health endpoints. */
    public WorkerHealth health() {
        return health;
    }

    /**
     * Refuses to start without the protocol's topics, or when the command topic does not stamp
     * log-append time; reads the command topic's ID and partition count. Must precede {@link #run()}.
     */
    public void checkTopics() {
        TopicCheck check = new TopicCheck(admin, settings.topics());
        // As the command topic's started partitions route, or as it is when none started.
        TopicIdentity identity = check.verify(count -> store.layouts(settings.topics().commands()).values().stream()
                .mapToInt(Layout::partitions).max().orElse(count));
        EngineSettings rules = settings.engine(identity.partitions());
        assignments = new Assignments(consumer, new PartitionPositioner(store, consumer, rules,
                settings.acceptSettingsChange(), metrics), check, identity, clock, health);
        PartitionMachine machine = new PartitionMachine(rules);
        BatchProcessor batches = new BatchProcessor(store, machine, assignments::topicId,
                partition -> acknowledged.getOrDefault(partition, 0L), settings.checkpoints(), metrics);
        processor = applying.processor(new Applying.Parts(batches, machine, publisher::publishAll));
        settlement = new Settlement(consumer, assignments, backlog, commits, health, acknowledged);
    }

    /**
     * Applies commands until {@link #stop()}.
     *
     * @throws WorkerStartException when this worker must not apply: its settings differ from
     *     those another worker recorded
     */
    public void run() {
        if (processor == null) {
            throw new IllegalStateException("checkTopics() must run before run()");
        }
        LOG.info("worker starting: {}, topics {}, group {}, reply allow-list {}, limits {}, retention {}, "
                + "apply threads {}", settings.kafka(), settings.topics(), settings.groupId(),
                settings.replyTopics().entries(), settings.limits(), settings.retention(), settings.applyThreads());
        sweeper.start();
        ticker.start();
        growth.start();
        transactions.start();
        try (PartitionPipeline batches = new PartitionPipeline(processor, publisher, settings.applyThreads(), metrics)) {
            pipeline = batches;
            consumer.subscribe(List.of(settings.topics().commands()), new Rebalances(consumer, batches, backlog,
                    assignments, commits, List.of(assigned), health));
            while (stopRequested.getCount() > 0) {
                pollOnce();
            }
            drain();
            backlog.clear();
            settle(pipeline.awaitAll());
            commits.commitAll();
        } catch (KafkaException e) {
            // A refusal thrown in a rebalance callback reaches us wrapped by the consumer.
            if (e.getCause() instanceof WorkerStartException refusal) {
                throw refusal;
            }
            throw e;
        } finally {
            LOG.info("worker stopped");
            stopped.countDown();
        }
    }

    private void pollOnce() {
        if (assignments.identityChanged()) {
            Set<TopicPartition> all = consumer.assignment();
            backlog.drop(all);
            settle(pipeline.await(all));
            assignments.assigned(all);
        }
        assignments.positionPending();
        ConsumerRecords<byte[], byte[]> records;
        try {
            records = consumer.poll(pipeline.isBusy() ? BUSY_POLL_TIMEOUT : POLL_TIMEOUT);
            health.polled();
            instruments.afterPoll();
        } catch (InvalidOffsetException e) {
            LOG.warn("partitions {} are at offsets the log no longer has ({}); positioning them from the database",
                    e.partitions(), e.getMessage());
            backlog.drop(e.partitions());
            settle(pipeline.await(e.partitions()));
            assignments.assigned(e.partitions());
            return;
        }
        long polledAt = System.nanoTime();
        long now = wall.millis();
        records.forEach(r -> metrics.fetched(Duration.ofMillis(now - r.timestamp())));
        for (TopicPartition tp : records.partitions()) {
            List<ConsumerRecord<byte[], byte[]>> polled = records.records(tp);
            logTimes.seen(tp.partition(), Instant.ofEpochMilli(polled.get(polled.size() - 1).timestamp()),
                    OptionalLong.empty(), polledAt);
            if (!assignments.applicable(tp)) {
                continue;
            }
            if (!pipeline.isApplying(tp)) {
                submit(tp, records.records(tp), polledAt);
            } else if (backlog.add(tp, records.records(tp))) {
                consumer.pause(List.of(tp));
            }
        }
        settle(pipeline.harvest());
        commits.flushIfDue();
    }

    /**
     * On stop, the ticks this worker sent are applied too, up to the log's end as it stands once
     * they are acknowledged (within {@link #DRAIN}): a stopped worker leaves no tick of its own
     * unapplied, so its database stops where the log does.
     */
    private void drain() {
        ticker.close();
        try {
            ticker.awaitQuiet(DRAIN);
            Map<TopicPartition, Long> ends = consumer.endOffsets(consumer.assignment().stream()
                    .filter(assignments::applicable).collect(Collectors.toSet()), DRAIN);
            long deadline = System.nanoTime() + DRAIN.toNanos();
            while (System.nanoTime() < deadline && (pipeline.isBusy() || !backlog.isEmpty()
                    || ends.entrySet().stream().anyMatch(end -> consumer.assignment().contains(end.getKey())
                            && consumer.position(end.getKey(), DRAIN) < end.getValue()))) {
                pollOnce();
            }
        } catch (KafkaException | IllegalStateException e) {
            LOG.info("stopping without applying this worker's last ticks: {}", e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Commits what was acknowledged, rewinds what failed, and resumes the partitions that are free. */
    private void settle(List<PartitionPipeline.Settled> settled) {
        if (settled.isEmpty()) {
            return;
        }
        if (settlement.settle(settled, pipeline::isApplying, this::submit)) {
            pause(backoff.next());
        } else {
            backoff.reset();
        }
    }

    private void submit(TopicPartition tp, List<ConsumerRecord<byte[], byte[]>> batch, long polledAt) {
        health.batchSubmitted(tp.toString());
        pipeline.submit(tp, batch, polledAt, assignments.floor(tp));
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
        instruments.close();
        sweeper.close();
        ticker.close();
        growth.close();
        transactions.close();
        consumer.close();
        producer.close();
        admin.close();
    }
}
