package dev.lockstep.bench.peers;

import dev.lockstep.bench.BenchWorker;
import dev.lockstep.client.LockClientSettings;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.store.LockStore;
import dev.lockstep.bench.BenchMode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.function.Function;

/**
 * Lockstep for the comparison: a worker as shipped on topics of its own, and the client library on
 * them; or the same worker in echo mode, the Kafka floor under it.
 */
final class LockstepSide implements AutoCloseable {

    /** What a side runs: the worker's mode and the peer the client library plays. */
    enum Kind {
        LOCKSTEP("lockstep", "lockstep (Java client library; worker, Kafka 4.4 broker, PostgreSQL)", BenchMode.LOCKSTEP,
                LockstepPeer::new),
        ECHO("echo", "not a lock: the same client and worker in echo mode, no database (Kafka's round trips alone)",
                BenchMode.ECHO, EchoPeer::new);

        final String peerName;
        final String described;
        private final BenchMode mode;
        private final Function<LockClientSettings, LockPeer> client;

        Kind(String peerName, String described, BenchMode mode, Function<LockClientSettings, LockPeer> client) {
            this.peerName = peerName;
            this.described = described;
            this.mode = mode;
            this.client = client;
        }
    }

    private static final int PARTITIONS = 12;

    private final BenchWorker worker;
    private final LockPeer peer;

    private LockstepSide(BenchWorker worker, LockPeer peer) {
        this.worker = worker;
        this.peer = peer;
    }

    static LockstepSide start(Kind kind, KafkaSettings kafka, LockStore store) {
        BenchWorker worker = BenchWorker.start(kafka, store, kind.mode, PARTITIONS, new SimpleMeterRegistry());
        return new LockstepSide(worker, kind.client.apply(LockClientSettings.defaults(kafka).withTopics(worker.topics())));
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
