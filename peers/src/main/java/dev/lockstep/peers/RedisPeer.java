package dev.lockstep.peers;

import dev.lockstep.bench.peers.LockPeer;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;
import org.redisson.Redisson;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.SetParams;

/**
 * Redis as a peer, the usual single-instance lock: {@code SET resource token NX PX ttl} to acquire
 * (again every millisecond while another holds it: Redis has no queue), a script that deletes the key only if it still holds the caller's token to release. Started with
 * {@code appendfsync always}, so that an acknowledged lock survives a crash, as lockstep's does.
 */
final class RedisPeer implements LockPeer {

    private static final String RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then "
            + "return redis.call('del', KEYS[1]) else return 0 end";

    private static final Duration POLL = Duration.ofMillis(1);

    private final String url;
    private final RedisClient redis;
    private final String releaseSha;
    private RedissonClient redisson;

    private RedisPeer(String url) {
        this.url = url;
        this.redis = RedisClient.create(URI.create(url));
        this.releaseSha = redis.scriptLoad(RELEASE);
    }

    @Override
    public Held acquire(String resource, String owner, Duration ttl) {
        String token = owner + "/" + UUID.randomUUID();
        SetParams params = SetParams.setParams().nx().px(ttl.toMillis());
        while (!"OK".equals(redis.set(resource, token, params))) {
            // Held: ask again in a millisecond, as Jedis locks poll (Redis has no queue to wait in).
            LockSupport.parkNanos(POLL.toNanos());
        }
        return () -> redis.evalsha(releaseSha, List.of(resource), List.of(token));
    }

    /**
     * Redisson's {@code RSemaphore} (its permits set once, {@code trySetPermits}): a permit is a
     * count, held by nobody in particular and with no lease, so a holder that dies keeps it forever.
     */
    @Override
    public Held acquirePermit(String resource, int permits, String owner, Duration ttl) {
        RSemaphore semaphore = redisson().getSemaphore("lockstep-bench-semaphore/" + resource);
        semaphore.trySetPermits(permits);
        try {
            semaphore.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for a permit of " + resource, e);
        }
        return semaphore::release;
    }

    private synchronized RedissonClient redisson() {
        if (redisson == null) {
            Config config = new Config();
            config.useSingleServer().setAddress(url);
            redisson = Redisson.create(config);
        }
        return redisson;
    }

    @Override
    public void close() {
        redis.close();
        synchronized (this) {
            if (redisson != null) {
                redisson.shutdown();
            }
        }
    }

    /** Finds Redis for the benchmark. */
    public static final class Provider implements LockPeer.Provider {

        @Override
        public String name() {
            return "redis";
        }

        @Override
        public String described() {
            return "Redis (Jedis; SET NX PX, polled every 1 ms while held, token-checked release script; appendonly "
                    + "yes, appendfsync always)";
        }

        @Override
        public LockPeer connect(String url) {
            return new RedisPeer(url);
        }

        @Override
        public Server start(Path dir) {
            int port = LocalServer.freePort();
            Path binary = Path.of("/usr/bin/redis-server");
            return LocalServer.start(binary, "redis-server", List.of(binary.toString(), "--port", Integer.toString(port),
                    "--bind", "127.0.0.1", "--dir", dir.toString(), "--appendonly", "yes", "--appendfsync", "always",
                    "--save", ""), dir, port, "redis://127.0.0.1:" + port);
        }
    }
}
