package dev.lockstep.http;

import dev.lockstep.protocol.Sha256;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The gateway's memory of the {@code Idempotency-Key}s it sent, with a digest of the command each
 * one carried: a key may only ever stand for one command. The worker refuses a reused request ID
 * on the same partition by itself; this also covers a key reused for a resource on another
 * partition, which the worker would take as a new request. Bounded by count and age (the worker's
 * default request retention); an entry forgotten leaves the worker's check.
 */
final class IdempotencyKeys {

    /** What a request with a key is, against what the key was used for before. */
    enum Use {
        /** Not seen (or forgotten): send it. */
        FIRST,
        /** The same command again: send it, the worker answers it once. */
        RETRY,
        /** Another command while the key's first request waits for its reply. */
        OTHER_IN_FLIGHT,
        /** Another command than the one the key was used for. */
        OTHER,
        /** The same command, but it timed out and was cancelled: its stored reply names a released lease. */
        CANCELLED
    }

    private static final class Entry {
        private final byte[] digest;
        private Instant lastUse;
        private int inFlight;
        private boolean cancelled;

        private Entry(byte[] digest, Instant lastUse) {
            this.digest = digest;
            this.lastUse = lastUse;
        }
    }

    private final int capacity;
    private final Duration maxAge;
    private final Clock clock;
    private final Map<String, Entry> keys = new LinkedHashMap<>(16, 0.75f, true);

    IdempotencyKeys(int capacity, Duration maxAge, Clock clock) {
        this.capacity = capacity;
        this.maxAge = maxAge;
        this.clock = clock;
    }

    /** Records a request with {@code key} carrying {@code command}; a FIRST or RETRY must be {@link #end}ed. */
    synchronized Use begin(String key, byte[] command) {
        byte[] digest = Sha256.of(command);
        Instant now = clock.instant();
        Entry entry = keys.get(key);
        if (entry != null && entry.inFlight == 0 && !entry.lastUse.plus(maxAge).isAfter(now)) {
            keys.remove(key);
            entry = null;
        }
        if (entry == null) {
            entry = new Entry(digest, now);
            entry.inFlight++;
            keys.put(key, entry);
            evict();
            return Use.FIRST;
        }
        if (!Arrays.equals(entry.digest, digest)) {
            return entry.inFlight > 0 ? Use.OTHER_IN_FLIGHT : Use.OTHER;
        }
        entry.lastUse = now;
        if (entry.cancelled) {
            return Use.CANCELLED;
        }
        entry.inFlight++;
        return Use.RETRY;
    }

    /** The request with {@code key} that {@link #begin} let through was answered (or gave up). */
    synchronized void end(String key) {
        Entry entry = keys.get(key);
        if (entry != null && entry.inFlight > 0) {
            entry.inFlight--;
        }
    }

    /** The request with {@code key} timed out and its acquire was cancelled: it is not to be sent again. */
    synchronized void cancelled(String key) {
        Entry entry = keys.get(key);
        if (entry != null) {
            entry.cancelled = true;
        }
    }

    synchronized int size() {
        return keys.size();
    }

    /** Drops the least recently used keys past the capacity, never one a request waits on. */
    private void evict() {
        var oldest = keys.entrySet().iterator();
        int excess = keys.size() - capacity;
        while (excess > 0 && oldest.hasNext()) {
            if (oldest.next().getValue().inFlight == 0) {
                oldest.remove();
                excess--;
            }
        }
    }
}
