package dev.lockstep.peers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.bench.peers.LockPeer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each peer as {@code lockstep bench --peers} runs it: started from the binaries Debian installs
 * (etcd-server, zookeeper, redis-server; a missing one fails naming its package), connected through
 * its client, and a real lock: a second caller waits while the first holds it and gets it after
 * the release.
 */
class PeersIT {

    private static LockPeer.Provider provider(String name) {
        return ServiceLoader.load(LockPeer.Provider.class).stream().map(ServiceLoader.Provider::get)
                .filter(p -> p.name().equals(name)).findFirst().orElseThrow();
    }

    /** The semaphore recipes: two permits go to the first two callers, the third waits for a release. */
    @ParameterizedTest
    @ValueSource(strings = {"zookeeper", "redis"})
    void aSemaphoreOfTwoMakesTheThirdCallerWait(String name, @TempDir Path dir) throws Exception {
        LockPeer.Provider provider = provider(name);
        try (LockPeer.Server server = provider.start(dir); LockPeer peer = provider.connect(server.url())) {
            String resource = "peers-it-semaphore-" + name;
            LockPeer.Held first = peer.acquirePermit(resource, 2, "first", Duration.ofSeconds(30));
            LockPeer.Held second = peer.acquirePermit(resource, 2, "second", Duration.ofSeconds(30));
            CompletableFuture<String> third = CompletableFuture.supplyAsync(() -> {
                peer.acquirePermit(resource, 2, "third", Duration.ofSeconds(30)).release();
                return "a permit";
            });
            Thread.sleep(500);
            assertThat(third).as("both permits are held").isNotDone();
            first.release();
            assertThat(third.get(30, TimeUnit.SECONDS)).isEqualTo("a permit");
            second.release();
        }
    }

    /** The election recipes: the second candidate leads only once the first resigned. */
    @ParameterizedTest
    @ValueSource(strings = {"etcd", "zookeeper"})
    void theNextCandidateLeadsWhenTheLeaderResigns(String name, @TempDir Path dir) throws Exception {
        LockPeer.Provider provider = provider(name);
        try (LockPeer.Server server = provider.start(dir); LockPeer peer = provider.connect(server.url())) {
            CountDownLatch aLeads = new CountDownLatch(1);
            CountDownLatch bLeads = new CountDownLatch(1);
            LockPeer.Candidate a = peer.campaign("peers-it-" + name, "a", Duration.ofSeconds(30), aLeads::countDown);
            assertThat(aLeads.await(30, TimeUnit.SECONDS)).as("a leads").isTrue();
            try (LockPeer.Candidate b = peer.campaign("peers-it-" + name, "b", Duration.ofSeconds(30),
                    bLeads::countDown)) {
                assertThat(bLeads.await(1, TimeUnit.SECONDS)).as("b waits while a leads").isFalse();
                a.close();
                assertThat(bLeads.await(30, TimeUnit.SECONDS)).as("b leads once a resigned").isTrue();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"etcd", "zookeeper", "redis"})
    void locksExcludeEachOtherUntilReleased(String name, @TempDir Path dir) throws Exception {
        LockPeer.Provider provider = provider(name);
        try (LockPeer.Server server = provider.start(dir); LockPeer first = provider.connect(server.url());
                LockPeer second = provider.connect(server.url())) {
            String resource = "peers-it-" + name;
            LockPeer.Held held = first.acquire(resource, "first", Duration.ofSeconds(30));
            // Acquired and released on one thread: Curator's mutex belongs to the thread that took it.
            CompletableFuture<String> waiting = CompletableFuture.supplyAsync(() -> {
                second.acquire(resource, "second", Duration.ofSeconds(30)).release();
                return "acquired and released";
            });
            Thread.sleep(500);
            assertThat(waiting).as("the second caller waits while the first holds the lock").isNotDone();

            held.release();
            assertThat(waiting.get(30, TimeUnit.SECONDS)).isEqualTo("acquired and released");
        }
    }
}
