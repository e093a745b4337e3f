package dev.lockstep.bench.peers;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A lock service that {@code lockstep bench --peers} measures side by side with lockstep, through
 * the service's own client. Lockstep's is in this jar; etcd's, ZooKeeper's and Redis's live in the
 * peers module ({@code peers/}), found by {@link java.util.ServiceLoader}, so that this jar carries
 * none of their clients.
 *
 * <pre>{@code
 * try (LockPeer peer = provider.connect(url)) {
 *     LockPeer.Held held = peer.acquire("job-7", "runner-1", Duration.ofSeconds(30));
 *     held.release();
 * }
 * }</pre>
 */
public interface LockPeer extends AutoCloseable {

    /** A lock acquired; {@link #release()} once, on the thread that acquired it (Curator's mutex is the thread's). */
    @FunctionalInterface
    interface Held {
        void release();
    }

    /** Acquires {@code resource} for {@code owner} with a lease of {@code ttl}, waiting while another holds it. */
    Held acquire(String resource, String owner, Duration ttl);

    /**
     * One of {@code permits} permits of {@code resource} (a counting semaphore), waiting while all
     * are held.
     *
     * @throws Unavailable when the system's client has no semaphore recipe
     */
    default Held acquirePermit(String resource, int permits, String owner, Duration ttl) {
        throw new Unavailable("its client has no semaphore recipe");
    }

    /** A candidate of a leader election; closing it resigns, and the next candidate leads. */
    interface Candidate extends AutoCloseable {

        @Override
        void close();
    }

    /**
     * Campaigns for {@code group} with a lease of {@code ttl}: {@code elected} runs once, when this
     * candidate leads.
     *
     * @throws Unavailable when the system's client has no leader election recipe
     */
    default Candidate campaign(String group, String candidate, Duration ttl, Runnable elected) {
        throw new Unavailable("its client has no leader election recipe");
    }

    /** Usable from any number of threads at once. */
    @Override
    void close();

    /** A server a provider started for the run; closing it stops it and removes what it wrote. */
    interface Server extends AutoCloseable {

        /** Where its clients connect: what {@link Provider#connect} takes. */
        String url();

        /** Its processes, whose CPU (with their descendants') the benchmark counts as the system's. */
        List<Long> pids();

        @Override
        void close();
    }

    /** One system: how to connect to it, and how to start it from binaries installed on this machine. */
    interface Provider {

        /** The name on the command line and in the results: {@code etcd}, {@code zookeeper}, {@code redis}. */
        String name();

        /** What is measured, for the table: the system, its client, the recipe. */
        String described();

        LockPeer connect(String url);

        /**
         * Starts the system in {@code dir} on free ports of 127.0.0.1, with its durable settings.
         *
         * @throws Unavailable when its binaries are not installed here (the message says which package)
         */
        Server start(Path dir);
    }

    /** A peer that cannot be measured here, and why: reported and left out of the table, never faked. */
    final class Unavailable extends RuntimeException {

        public Unavailable(String message) {
            super(message);
        }

        public Unavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
