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
        /** A request with the key was answered with its reply: its caller may hold the lease. */
        private boolean answered;
        /** A request with the key timed out and its acquire is cancelled: its lease, if any, is released. */
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

    /**
     * Records a request with {@code key} carrying {@code command}; a FIRST or RETRY must end with
     * {@link #end}, {@link #answered} or {@link #timedOut}.
     */
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

    /** The request with {@code key} that {@link #begin} let through failed without a reply, and cancels nothing. */
    synchronized void end(String key) {
        ended(key);
    }

    /**
     * The request with {@code key} got its reply. Whether the caller may be given it: not when a
     * request with the key timed out meanwhile and its acquire is cancelled, for then the reply
     * names a lease the cancellation releases (the caller is answered as a cancelled request is).
     * Otherwise no request with the key is cancelled from now on.
     */
    synchronized boolean answered(String key) {
        Entry entry = ended(key);
        if (entry == null || !entry.cancelled) {
            if (entry != null) {
                entry.answered = true;
            }
            return true;
        }
        return false;
    }

    /**
     * The acquire with {@code key} timed out. Whether to cancel it: yes, and the key is cancelled in
     * the same step (a retry from then on is not sent, and one in flight is not given its reply),
     * unless a request with the key was answered already: its caller may hold the lease, which a
     * cancellation would release under it.
     */
    synchronized boolean timedOut(String key) {
        Entry entry = ended(key);
        if (entry == null) {
            return true;
        }
        if (!entry.answered) {
            entry.cancelled = true;
        }
        return entry.cancelled;
    }

    private Entry ended(String key) {
        Entry entry = keys.get(key);
        if (entry != null && entry.inFlight > 0) {
            entry.inFlight--;
        }
        return entry;
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
