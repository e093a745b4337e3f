package dev.lockstep.peers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.bench.peers.LockPeer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
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

    @ParameterizedTest
    @ValueSource(strings = {"etcd", "zookeeper", "redis"})
    void locksExcludeEachOtherUntilReleased(String name, @TempDir Path dir) throws Exception {
        LockPeer.Provider provider = ServiceLoader.load(LockPeer.Provider.class).stream()
                .map(ServiceLoader.Provider::get).filter(p -> p.name().equals(name)).findFirst().orElseThrow();
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
