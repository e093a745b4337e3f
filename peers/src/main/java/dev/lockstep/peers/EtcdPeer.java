package dev.lockstep.peers;

import dev.lockstep.bench.peers.LockPeer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.election.CampaignResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * etcd as a peer, through jetcd as its documentation has it: a lease of the TTL, then the lock
 * service's lock on it; release unlocks and revokes the lease. etcd syncs its log to disk before it
 * answers.
 */
final class EtcdPeer implements LockPeer {

    private final Client client;

    private EtcdPeer(String url) {
        this.client = Client.builder().endpoints(url).build();
    }

    @Override
    public Held acquire(String resource, String owner, Duration ttl) {
        try {
            long lease = client.getLeaseClient().grant(Math.max(1, ttl.toSeconds())).get().getID();
            ByteSequence key = client.getLockClient().lock(ByteSequence.from(resource, StandardCharsets.UTF_8), lease)
                    .get().getKey();
            return () -> {
                try {
                    client.getLockClient().unlock(key).get();
                    client.getLeaseClient().revoke(lease).get();
                } catch (ExecutionException e) {
                    throw new IllegalStateException("etcd did not release " + resource + ": " + e.getCause().getMessage(), e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted releasing " + resource, e);
                }
            };
        } catch (ExecutionException e) {
            throw new IllegalStateException("etcd did not lock " + resource + ": " + e.getCause().getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted locking " + resource, e);
        }
    }

    /**
     * jetcd's {@code Election}: a lease of the TTL kept alive, then a campaign on it that completes
     * when this candidate leads; resigning deletes its key, and the next candidate's campaign completes.
     */
    @Override
    public Candidate campaign(String group, String candidate, Duration ttl, Runnable elected) {
        ByteSequence name = ByteSequence.from("lockstep-bench-election/" + group, StandardCharsets.UTF_8);
        try {
            long lease = client.getLeaseClient().grant(Math.max(1, ttl.toSeconds())).get().getID();
            CloseableClient keepAlive = client.getLeaseClient().keepAlive(lease, new StreamObserver<>() {
                @Override
                public void onNext(LeaseKeepAliveResponse response) {
                }

                @Override
                public void onError(Throwable error) {
                }

                @Override
                public void onCompleted() {
                }
            });
            CompletableFuture<CampaignResponse> campaign = client.getElectionClient().campaign(name, lease,
                    ByteSequence.from(candidate, StandardCharsets.UTF_8));
            campaign.thenRun(elected);
            return () -> {
                try {
                    if (campaign.isDone() && !campaign.isCompletedExceptionally()) {
                        client.getElectionClient().resign(campaign.get().getLeader()).get();
                    }
                    keepAlive.close();
                    client.getLeaseClient().revoke(lease).get();
                } catch (ExecutionException e) {
                    throw new IllegalStateException("etcd did not resign " + group + ": " + e.getCause().getMessage(), e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted resigning " + group, e);
                }
            };
        } catch (ExecutionException e) {
            throw new IllegalStateException("etcd did not campaign for " + group + ": " + e.getCause().getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted campaigning for " + group, e);
        }
    }

    @Override
    public void close() {
        client.close();
    }

    /** Finds etcd for the benchmark. */
    public static final class Provider implements LockPeer.Provider {

        @Override
        public String name() {
            return "etcd";
        }

        @Override
        public String described() {
            return "etcd (jetcd; lease grant + lock, unlock + revoke)";
        }

        @Override
        public LockPeer connect(String url) {
            return new EtcdPeer(url);
        }

        @Override
        public Server start(Path dir) {
            int client = LocalServer.freePort();
            int peer = LocalServer.freePort();
            String clientUrl = "http://127.0.0.1:" + client;
            String peerUrl = "http://127.0.0.1:" + peer;
            Path binary = Path.of("/usr/bin/etcd");
            return LocalServer.start(binary, "etcd-server", List.of(binary.toString(), "--name", "bench",
                    "--data-dir", dir.resolve("data").toString(), "--listen-client-urls", clientUrl,
                    "--advertise-client-urls", clientUrl, "--listen-peer-urls", peerUrl,
                    "--initial-advertise-peer-urls", peerUrl, "--initial-cluster", "bench=" + peerUrl), dir, client,
                    clientUrl);
        }
    }
}
