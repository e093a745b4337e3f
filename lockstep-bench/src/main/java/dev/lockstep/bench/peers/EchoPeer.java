package dev.lockstep.bench.peers;

import dev.lockstep.client.BlockingLockClient;
import dev.lockstep.client.LockClient;
import dev.lockstep.client.LockClientSettings;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * Not a lock: the client library against a worker in echo mode, which answers every command
 * without a database. Its acquire and release are each one command and its reply, whatever the
 * reply says, so its figures are what Kafka's round trips alone cost lockstep on this machine, the
 * floor under lockstep's own row.
 */
final class EchoPeer implements LockPeer {

    private final LockClient client;

    EchoPeer(LockClientSettings settings) {
        this.client = LockClient.start(settings);
    }

    @Override
    public Held acquire(String resource, String owner, Duration ttl) {
        BlockingLockClient blocking = client.blocking();
        blocking.acquire(resource, owner, ttl);
        return () -> blocking.release(resource, owner, OptionalLong.empty());
    }

    @Override
    public void close() {
        client.close();
    }
}
