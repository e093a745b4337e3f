package dev.lockstep.peers;

import dev.lockstep.bench.peers.LockPeer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * ZooKeeper as a peer, through Apache Curator's {@code InterProcessMutex} (an ephemeral sequential
 * node per waiter; the lease is the client's session, so the TTL is not the lock's). ZooKeeper
 * syncs its transaction log before it answers.
 */
final class ZooKeeperPeer implements LockPeer {

    private final CuratorFramework client;

    private ZooKeeperPeer(String connect) {
        this.client = CuratorFrameworkFactory.newClient(connect, new ExponentialBackoffRetry(100, 5));
        client.start();
        try {
            if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
                client.close();
                throw new Unavailable("ZooKeeper at " + connect + " did not answer within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            client.close();
            throw new Unavailable("interrupted while connecting to ZooKeeper at " + connect, e);
        }
    }

    @Override
    public Held acquire(String resource, String owner, Duration ttl) {
        InterProcessMutex mutex = new InterProcessMutex(client, "/lockstep-bench/" + resource);
        try {
            mutex.acquire();
        } catch (Exception e) { // Curator's acquire declares Exception
            throw new IllegalStateException("ZooKeeper did not lock " + resource + ": " + e.getMessage(), e);
        }
        return () -> {
            try {
                mutex.release();
            } catch (Exception e) { // likewise
                throw new IllegalStateException("ZooKeeper did not release " + resource + ": " + e.getMessage(), e);
            }
        };
    }

    /** Curator's {@code InterProcessSemaphoreV2}: the permit is a lease node, held for the session, not a TTL. */
    @Override
    public Held acquirePermit(String resource, int permits, String owner, Duration ttl) {
        InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(client, "/lockstep-bench-semaphore/" + resource,
                permits);
        Lease lease;
        try {
            lease = semaphore.acquire();
        } catch (Exception e) { // Curator's acquire declares Exception
            throw new IllegalStateException("ZooKeeper gave no permit of " + resource + ": " + e.getMessage(), e);
        }
        return () -> semaphore.returnLease(lease);
    }

    /** Curator's {@code LeaderLatch}: closing it relinquishes leadership, and the next latch in line leads. */
    @Override
    public Candidate campaign(String group, String candidate, Duration ttl, Runnable elected) {
        LeaderLatch latch = new LeaderLatch(client, "/lockstep-bench-election/" + group, candidate);
        latch.addListener(new LeaderLatchListener() {
            @Override
            public void isLeader() {
                elected.run();
            }

            @Override
            public void notLeader() {
            }
        });
        try {
            latch.start();
        } catch (Exception e) { // Curator's start declares Exception
            throw new IllegalStateException("ZooKeeper did not start a latch for " + group + ": " + e.getMessage(), e);
        }
        return () -> {
            try {
                latch.close();
            } catch (IOException e) {
                throw new UncheckedIOException("closing the latch of " + group, e);
            }
        };
    }

    @Override
    public void close() {
        client.close();
    }

    /** Finds ZooKeeper for the benchmark. */
    public static final class Provider implements LockPeer.Provider {

        @Override
        public String name() {
            return "zookeeper";
        }

        @Override
        public String described() {
            return "ZooKeeper (Apache Curator InterProcessMutex)";
        }

        @Override
        public LockPeer connect(String url) {
            return new ZooKeeperPeer(url);
        }

        @Override
        public Server start(Path dir) {
            int port = LocalServer.freePort();
            Path script = Path.of("/usr/share/zookeeper/bin/zkServer.sh");
            Path config = dir.resolve("zoo.cfg");
            try {
                Files.createDirectories(dir.resolve("data"));
                Files.writeString(config, "tickTime=2000\ndataDir=" + dir.resolve("data") + "\nclientPort=" + port
                        + "\nclientPortAddress=127.0.0.1\nadmin.enableServer=false\n4lw.commands.whitelist=srvr\n");
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + config, e);
            }
            LocalServer server = LocalServer.start(script, "zookeeper", List.of(script.toString(), "start-foreground",
                    config.toString()), dir, port, "127.0.0.1:" + port);
            awaitServing(port, server);
            return server;
        }

        /**
         * An open port is not yet a serving server: a session asked for before ZooKeeper serves
         * is dropped, and a first start on a cold machine once took longer than a client waits.
         * {@code srvr} answers with the server's mode once it serves.
         */
        private static void awaitServing(int port, LocalServer server) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline) {
                try (Socket socket = new Socket()) {
                    socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
                    socket.setSoTimeout(2_000);
                    socket.getOutputStream().write("srvr".getBytes(StandardCharsets.US_ASCII));
                    if (new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).contains("Mode:")) {
                        return;
                    }
                } catch (IOException e) {
                    // Not serving yet: ask again.
                }
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            server.close();
            throw new Unavailable("ZooKeeper on port " + port + " did not serve within 60 s");
        }
    }
}
