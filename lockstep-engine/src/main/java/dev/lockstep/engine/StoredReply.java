package dev.lockstep.engine;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A reply's bytes as a request entry keeps them, equal by content. The bytes are shared with the
 * reply record that published them, never copied: one copy per request ID is what the worker's
 * batches hold. Nobody changes them.
 *
 * <p>A replay holds a whole retention window of entries and packs their replies into large shared
 * arrays ({@link #packInto}): a collector copies one large array where it would copy a small one
 * per entry again and again.
 */
public final class StoredReply {

    /** The size of the arrays a replay packs replies into; a larger reply gets one of its own. */
    static final int SLAB_BYTES = 1 << 20;

    private final byte[] bytes;
    private final int from;
    private final int length;

    private StoredReply(byte[] bytes, int from, int length) {
        this.bytes = bytes;
        this.from = from;
        this.length = length;
    }

    /** The encoder's bytes, kept as they are (not copied: the caller hands them over). */
    public static StoredReply of(byte[] bytes) {
        return new StoredReply(bytes, 0, bytes.length);
    }

    /** A reply read back as text (from the database). */
    public static StoredReply ofText(String text) {
        return of(text.getBytes(StandardCharsets.UTF_8));
    }

    /** The bytes to publish; not to be changed. */
    public byte[] bytes() {
        return from == 0 && length == bytes.length ? bytes : Arrays.copyOfRange(bytes, from, from + length);
    }

    public String text() {
        return new String(bytes, from, length, StandardCharsets.UTF_8);
    }

    /** Where a replay packs replies: the array being filled and how far. */
    static final class Slab {

        private byte[] current = new byte[0];
        private int used;

        /** The same reply, its bytes copied into this slab. */
        StoredReply pack(StoredReply reply) {
            if (reply.length > current.length - used) {
                current = new byte[Math.max(SLAB_BYTES, reply.length)];
                used = 0;
            }
            System.arraycopy(reply.bytes, reply.from, current, used, reply.length);
            StoredReply packed = new StoredReply(current, used, reply.length);
            used += reply.length;
            return packed;
        }
    }

    /** The same reply with its bytes in {@code slab}. */
    StoredReply packInto(Slab slab) {
        return slab.pack(this);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof StoredReply reply
                && Arrays.equals(bytes, from, from + length, reply.bytes, reply.from, reply.from + reply.length);
    }

    @Override
    public int hashCode() {
        int hash = 1;
        for (int i = from; i < from + length; i++) {
            hash = 31 * hash + bytes[i];
        }
        return hash;
    }

    @Override
    public String toString() {
        return text();
    }
}
