package dev.lockstep.bench.peers;

import dev.lockstep.bench.BenchWorker;
import dev.lockstep.client.LockClientSettings;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.store.LockStore;
import dev.lockstep.worker.ApplyMode;
import dev.lockstep.worker.StageTimings;

/** Lockstep for the comparison: a worker as shipped on topics of its own, and the client library on them. */
final class LockstepSide implements AutoCloseable {

    static final String DESCRIBED = "lockstep (Java client library; worker, Kafka 4.4 broker, PostgreSQL)";
    private static final int PARTITIONS = 12;

    private final BenchWorker worker;
    private final LockstepPeer peer;

    private LockstepSide(BenchWorker worker, LockstepPeer peer) {
        this.worker = worker;
        this.peer = peer;
    }

    static LockstepSide start(KafkaSettings kafka, LockStore store) {
        BenchWorker worker = BenchWorker.start(kafka, store, ApplyMode.BATCH, PARTITIONS, StageTimings.NONE);
        return new LockstepSide(worker, new LockstepPeer(LockClientSettings.defaults(kafka).withTopics(worker.topics())));
    }

    LockPeer peer() {
        return peer;
    }

    @Override
    public void close() throws InterruptedException {
        peer.close();
        worker.close();
    }
}
