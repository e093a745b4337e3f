package dev.lockstep.faults;

import dev.lockstep.core.Command;
import dev.lockstep.core.Share;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.CommandEncoder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;

/**
 * Many clients contending for a few resources with short leases, each publishing commands at
 * its own pace without waiting for replies (the replies are read back from the topic when the
 * run is over). Some commands are published twice with the same request ID, as a client that
 * timed out and retried would. One acquire in four waits in the queue; now and then a client
 * cancels its latest acquire, as one that gave up on it would. Of four or more resources, one is a
 * semaphore of two and one a read-write lock, and one a leader election (its acquires publish a
 * value), so that every fault run checks shares and vacancies too. A request
 * counts as sent once the broker acknowledged it.
 */
final class Workload implements AutoCloseable {

    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;
    private final long seed;
    private final int resources;
    private final Duration pause;
    private final Set<String> sent = ConcurrentHashMap.newKeySet();
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final List<Thread> clients = new ArrayList<>();
    private volatile boolean running = true;

    private Workload(KafkaSettings kafka, String topic, long seed, int resources, Duration pause) {
        this.producer = new KafkaProducer<>(kafka.with(Map.of(
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.LINGER_MS_CONFIG, 2,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000)),
                new ByteArraySerializer(), new ByteArraySerializer());
        this.topic = topic;
        this.seed = seed;
        this.resources = resources;
        this.pause = pause;
    }

    /**
     * @param clients concurrent clients, each its own owner
     * @param resources how many resources they contend for
     * @param pause each client's pause between two commands
     */
    static Workload start(KafkaSettings kafka, String topic, long seed, int clients, int resources, Duration pause) {
        Workload workload = new Workload(kafka, topic, seed, resources, pause);
        for (int i = 0; i < clients; i++) {
            int client = i;
            workload.clients.add(new Thread(() -> workload.client(client), "client-" + i));
        }
        workload.clients.forEach(Thread::start);
        return workload;
    }

    private void client(int index) {
        Random random = new Random(seed * 1_000 + index);
        String owner = "client-" + index;
        List<Command> mine = new ArrayList<>();
        Optional<Command.Acquire> lastAcquire = Optional.empty();
        long n = 0;
        while (running) {
            int dice = random.nextInt(100);
            String requestId = "s" + seed + "-c" + index + "-" + n++;
            Command command = dice < 4 && !mine.isEmpty() ? mine.get(random.nextInt(mine.size()))
                    : dice < 7 && lastAcquire.isPresent() ? Command.Release.cancelling(requestId, lastAcquire.get())
                    : next(random, owner, requestId);
            if (command instanceof Command.Acquire acquire) {
                lastAcquire = Optional.of(acquire);
            }
            mine.add(command);
            publish(command);
            LockSupport.parkNanos(pause.toNanos());
        }
    }

    private Command next(Random random, String owner, String requestId) {
        int index = random.nextInt(resources);
        // Named per run: runs that share a database (the soak's rounds) must not share leases.
        String resource = "s" + seed + "-res-" + index;
        Duration ttl = Duration.ofSeconds(1 + random.nextInt(2));
        int dice = random.nextInt(100);
        Share share = share(random, index);
        Optional<String> value = value(index, owner);
        return dice < 10 ? new Command.Acquire(requestId, resource, owner, ttl,
                        Duration.ofMillis(200 + random.nextInt(1_800)), share, value)
                : dice < 40 ? new Command.Acquire(requestId, resource, owner, ttl, Duration.ZERO, share, value)
                : dice < 60 ? new Command.Renew(requestId, resource, owner, ttl, OptionalLong.empty())
                : dice < 90 ? new Command.Release(requestId, resource, owner, OptionalLong.empty())
                : new Command.Status(requestId, resource);
    }

    /**
     * The share an acquire of the resource asks for: of four or more resources, the last is a
     * semaphore of two and the one before it a read-write lock (readers and writers at random);
     * the others, and those of smaller runs, are locks.
     */
    private Optional<String> value(int index, String owner) {
        // The first resource is a leader election: its leases publish a value, and their ends a vacancy.
        return resources >= 4 && index == 0 ? Optional.of(owner + ":8080") : Optional.empty();
    }

    private Share share(Random random, int index) {
        if (resources >= 4 && index == resources - 1) {
            return Share.shared(2);
        }
        if (resources >= 4 && index == resources - 2) {
            return random.nextBoolean() ? Share.shared(Share.MAX_LIMIT) : Share.EXCLUSIVE;
        }
        return Share.EXCLUSIVE;
    }

    private void publish(Command command) {
        try {
            producer.send(new ProducerRecord<>(topic, CommandEncoder.key(command),
                    CommandEncoder.encode(command, Optional.empty())), (metadata, error) -> {
                        if (error == null) {
                            sent.add(command.requestId());
                        } else {
                            failed.incrementAndGet();
                        }
                    });
            published.incrementAndGet();
        } catch (RuntimeException e) {
            failed.incrementAndGet(); // broker unreachable for longer than max.block.ms: not sent
        }
    }

    /** Waits until {@code more} further commands were published (acknowledged or not). */
    void awaitPublished(long more) {
        long target = published.get() + more;
        Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                .until(() -> published.get() >= target);
    }

    /** Stops the clients and waits for every acknowledgement; returns the request IDs sent. */
    Set<String> finish() {
        running = false;
        for (Thread client : clients) {
            try {
                client.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        producer.flush();
        return Set.copyOf(sent);
    }

    long failedSends() {
        return failed.get();
    }

    @Override
    public void close() {
        running = false;
        producer.close(Duration.ofSeconds(10));
    }
}
