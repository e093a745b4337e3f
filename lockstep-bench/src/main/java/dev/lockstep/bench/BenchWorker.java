package dev.lockstep.bench;

import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.store.LockStore;
import dev.lockstep.topics.TopicApplier;
import dev.lockstep.topics.TopicSpecs;
import dev.lockstep.worker.Worker;
import dev.lockstep.worker.WorkerSettings;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;

/**
 * A worker for one benchmark run, on topics of its own (so that no run sees another's records),
 * running until closed.
 */
public final class BenchWorker implements AutoCloseable {

    private static final AtomicInteger RUNS = new AtomicInteger();

    private final TopicNames topics;
    private final Worker worker;
    private final Thread thread;
    private final int run;

    private BenchWorker(TopicNames topics, Worker worker, Thread thread, int run) {
        this.topics = topics;
        this.worker = worker;
        this.thread = thread;
        this.run = run;
    }

    public static BenchWorker start(KafkaSettings kafka, LockStore store, BenchMode mode, int partitions,
            MeterRegistry registry) {
        int run = RUNS.incrementAndGet();
        String suffix = "bench-" + ProcessHandle.current().pid() + "-" + run;
        TopicNames topics = new TopicNames("bench.commands." + suffix, "lock.replies." + suffix,
                "bench.commands.dlq." + suffix, "bench.events." + suffix);
        try (Admin admin = Admin.create(kafka.with(Map.of()))) {
            new TopicApplier(admin).apply(TopicSpecs.renamed(topics, partitions, (short) 1));
        }
        WorkerSettings settings = WorkerSettings.defaults(kafka)
                .withTopics(topics, new TopicAllowList(TopicAllowList.DEFAULT))
                .withGroupId("bench-" + suffix);
        Worker worker = Worker.connect(settings, store, Clock.systemUTC(), mode, registry);
        worker.checkTopics();
        Thread thread = new Thread(worker::run, "bench-worker");
        thread.start();
        return new BenchWorker(topics, worker, thread, run);
    }

    public TopicNames topics() {
        return topics;
    }

    /** A number for this run, unique in the process: seeds and names. */
    int run() {
        return run;
    }

    @Override
    public void close() throws InterruptedException {
        worker.stop();
        worker.awaitStopped(Duration.ofSeconds(30));
        thread.join();
        worker.close();
    }
}
