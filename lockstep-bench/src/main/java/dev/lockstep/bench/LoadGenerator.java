package dev.lockstep.bench;

import dev.lockstep.core.Command;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.CommandEncoder;
import dev.lockstep.protocol.TopicNames;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Publishes commands and times their replies. At a fixed rate it is open-loop: command i is due
 * at {@code start + i / rate} whether or not earlier replies came, and its latency is measured
 * from when it was due (so a stalled system is not excused by a stalled generator). At maximum
 * throughput it keeps a fixed number of commands in flight. Only commands due after the warm-up
 * are counted.
 */
final class LoadGenerator implements AutoCloseable {

    private static final byte[] INVALID = "\"outcome\":\"invalid\"".getBytes(StandardCharsets.UTF_8);
    private static final int IN_FLIGHT = 4_000;

    private final KafkaProducer<byte[], byte[]> producer;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final TopicNames topics;
    private final int replyPartitions;
    /** A command sent and not yet answered: when it was due, and when it was sent (both clocks). */
    private record Pending(long dueNanos, long sentNanos, long sentMillis) {
    }

    private final Map<String, Pending> pending = new ConcurrentHashMap<>();
    private final Optional<StageTrace> trace;
    private final Histogram micros = new Histogram(TimeUnit.MINUTES.toMicros(5), 3);
    private final AtomicLong answered = new AtomicLong();
    private final AtomicLong invalid = new AtomicLong();
    private final Semaphore window = new Semaphore(IN_FLIGHT);
    private final Thread reader;
    private volatile long countFromNanos = Long.MAX_VALUE;
    private volatile long countUntilNanos = Long.MAX_VALUE;
    private volatile boolean running = true;

    private LoadGenerator(KafkaSettings kafka, TopicNames topics, int replyPartitions, Optional<StageTrace> trace) {
        this.topics = topics;
        this.trace = trace;
        this.replyPartitions = replyPartitions;
        // As the client library sends commands: at once, acks from all replicas.
        this.producer = new KafkaProducer<>(kafka.with(Map.of(
                ProducerConfig.LINGER_MS_CONFIG, 0,
                ProducerConfig.BATCH_SIZE_CONFIG, 64 * 1024), Map.of(ProducerConfig.ACKS_CONFIG, "all")),
                new ByteArraySerializer(), new ByteArraySerializer());
        this.consumer = new KafkaConsumer<>(kafka.with(Map.of(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2_000)),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> partitions = List.of();
        for (int attempt = 0; partitions.size() < replyPartitions && attempt < 100; attempt++) {
            // a topic created a moment ago may not be in the metadata yet
            partitions = consumer.partitionsFor(topics.replies()).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            if (partitions.size() < replyPartitions) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
        }
        if (partitions.size() < replyPartitions) {
            throw new IllegalStateException("reply topic " + topics.replies() + " has " + partitions.size()
                    + " partitions, expected " + replyPartitions);
        }
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position);
        this.reader = new Thread(this::readReplies, "bench-replies");
    }

    /** @param trace where the stages of each command measured after the warm-up are recorded, if anywhere */
    static LoadGenerator start(KafkaSettings kafka, TopicNames topics, int replyPartitions, Optional<StageTrace> trace) {
        LoadGenerator generator = new LoadGenerator(kafka, topics, replyPartitions, trace);
        generator.reader.start();
        return generator;
    }

    /** Sends one command and waits for its reply: to know the worker is up before measuring. */
    boolean probe(Command command, Duration timeout) {
        send(command, System.nanoTime());
        long deadline = System.nanoTime() + timeout.toNanos();
        while (pending.containsKey(command.requestId()) && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
        return !pending.containsKey(command.requestId());
    }

    /** @param rate commands per second; empty for maximum throughput */
    BenchResult run(String mode, String scenario, Optional<Integer> rate, CommandMix mix, Duration warmup,
            Duration measure) throws InterruptedException {
        long start = System.nanoTime();
        long countFrom = start + warmup.toNanos();
        long end = countFrom + measure.toNanos();
        countUntilNanos = end;
        countFromNanos = countFrom;
        long sent = 0;
        boolean measuring = false;
        while (true) {
            long due = rate.isPresent() ? start + (long) (sent * 1e9 / rate.get()) : System.nanoTime();
            if (due >= end) {
                break;
            }
            if (rate.isPresent()) {
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
            } else if (!window.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                continue;
            }
            if (!measuring && due >= countFrom) {
                // The worker's stages too are recorded from here on: what the warm-up did is not counted.
                measuring = true;
                trace.ifPresent(StageTrace::reset);
            }
            send(mix.next(), due);
            sent++;
        }
        long drainUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!pending.isEmpty() && System.nanoTime() < drainUntil) {
            Thread.sleep(20);
        }
        long unanswered = pending.size();
        pending.clear();
        synchronized (micros) {
            boolean any = micros.getTotalCount() > 0;
            BenchResult result = new BenchResult(mode, scenario, rate.orElse(null),
                    answered.get() / (measure.toNanos() / 1e9), any ? micros.getValueAtPercentile(50) / 1000.0 : null,
                    any ? micros.getValueAtPercentile(99) / 1000.0 : null,
                    any ? micros.getValueAtPercentile(99.9) / 1000.0 : null, unanswered + invalid.get());
            micros.reset();
            answered.set(0);
            invalid.set(0);
            window.drainPermits();
            window.release(IN_FLIGHT);
            countFromNanos = Long.MAX_VALUE;
            return result;
        }
    }

    private void send(Command command, long due) {
        int partition = Math.floorMod(command.requestId().hashCode(), replyPartitions);
        RecordHeaders headers = new RecordHeaders();
        headers.add("kafka_replyTopic", topics.replies().getBytes(StandardCharsets.UTF_8));
        headers.add("kafka_replyPartition", ByteBuffer.allocate(4).putInt(partition).array());
        long sentMillis = System.currentTimeMillis();
        pending.put(command.requestId(), new Pending(due, System.nanoTime(), sentMillis));
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topics.commands(), null, CommandEncoder.key(command),
                CommandEncoder.encode(command, Optional.empty()), headers);
        if (trace.isPresent() && due >= countFromNanos) {
            // The command topic stamps log-append time: the acknowledgement says when the broker appended it.
            producer.send(record, (metadata, error) -> {
                if (error == null) {
                    trace.get().record(StageTrace.Stage.PRODUCE, Duration.ofMillis(metadata.timestamp() - sentMillis));
                }
            });
        } else {
            producer.send(record);
        }
    }

    private void readReplies() {
        try {
            while (running) {
                for (ConsumerRecord<byte[], byte[]> reply : consumer.poll(Duration.ofMillis(50))) {
                    Pending sent = pending.remove(new String(reply.key(), StandardCharsets.UTF_8));
                    if (sent == null) {
                        continue;
                    }
                    long due = sent.dueNanos();
                    window.release();
                    long now = System.nanoTime();
                    // Throughput: every reply that arrived inside the measured window.
                    if (now >= countFromNanos && now < countUntilNanos) {
                        answered.incrementAndGet();
                    }
                    // Latency: every command that was due after the warm-up, however late its reply.
                    if (due >= countFromNanos) {
                        synchronized (micros) {
                            micros.recordValue(Math.min(TimeUnit.NANOSECONDS.toMicros(Math.max(0, now - due)),
                                    micros.getHighestTrackableValue()));
                        }
                        if (contains(reply.value(), INVALID)) {
                            invalid.incrementAndGet();
                        }
                        trace.ifPresent(stages -> {
                            stages.record(StageTrace.Stage.REPLY_FETCH,
                                    Duration.ofMillis(System.currentTimeMillis() - reply.timestamp()));
                            stages.record(StageTrace.Stage.TOTAL, Duration.ofNanos(now - sent.sentNanos()));
                        });
                    }
                }
            }
        } catch (WakeupException e) {
            // closing
        } finally {
            consumer.close();
        }
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        consumer.wakeup();
        reader.join(10_000);
        producer.close(Duration.ofSeconds(5));
    }
}
