package dev.lockstep.bench.peers;

import dev.lockstep.client.HeldLease;
import dev.lockstep.client.LockClient;
import dev.lockstep.client.LockClientSettings;
import java.time.Duration;

/** Lockstep as a peer: the Java client library against a real worker, as a service would use it. */
final class LockstepPeer implements LockPeer {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final LockClient client;

    LockstepPeer(LockClientSettings settings) {
        this.client = LockClient.start(settings);
    }

    @Override
    public Held acquire(String resource, String owner, Duration ttl) {
        HeldLease lease = client.blocking().tryAcquire(resource, owner, ttl, WAIT)
                .orElseThrow(() -> new IllegalStateException(resource + " was not acquired within " + WAIT));
        return lease::close;
    }

    @Override
    public void close() {
        client.close();
    }
}
