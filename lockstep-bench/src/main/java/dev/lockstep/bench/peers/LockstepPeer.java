package dev.lockstep.bench.peers;

import dev.lockstep.client.HeldLease;
import dev.lockstep.client.LeaderElection;
import dev.lockstep.client.LeaseLost;
import dev.lockstep.client.LockClient;
import dev.lockstep.client.LockClientSettings;
import dev.lockstep.core.Share;
import java.time.Duration;
import java.util.Optional;

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
    public Held acquirePermit(String resource, int permits, String owner, Duration ttl) {
        HeldLease lease = client.blocking().tryAcquire(resource, owner, ttl, WAIT, Share.shared(permits))
                .orElseThrow(() -> new IllegalStateException(resource + " had no free permit within " + WAIT));
        return lease::close;
    }

    @Override
    public Candidate campaign(String group, String candidate, Duration ttl, Runnable elected) {
        LeaderElection election = LeaderElection.of(client, group, candidate, ttl, Optional.empty(),
                new LeaderElection.Listener() {
                    @Override
                    public void gained(LeaderElection.Leadership leadership) {
                        elected.run();
                    }

                    @Override
                    public void lost(LeaderElection.Leadership leadership, LeaseLost.Reason why) {
                    }
                });
        election.campaign();
        return election::close;
    }

    @Override
    public void close() {
        client.close();
    }
}
