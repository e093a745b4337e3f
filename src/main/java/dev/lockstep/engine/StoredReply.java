package dev.lockstep.engine;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A reply's bytes as a request entry keeps them, equal by content. The bytes are shared with the
 * reply record that published them and with a replay's expectations, never copied: one copy per
 * request ID is what the worker's batches and a replay's memory hold. Nobody changes them.
 */
public final class StoredReply {

    private final byte[] bytes;

    private StoredReply(byte[] bytes) {
        this.bytes = bytes;
    }

    /** The encoder's bytes, kept as they are (not copied: the caller hands them over). */
    public static StoredReply of(byte[] bytes) {
        return new StoredReply(bytes);
    }

    /** A reply read back as text (from the database). */
    public static StoredReply ofText(String text) {
        return new StoredReply(text.getBytes(StandardCharsets.UTF_8));
    }

    /** The bytes to publish; not to be changed. */
    public byte[] bytes() {
        return bytes;
    }

    public String text() {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof StoredReply reply && Arrays.equals(bytes, reply.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return text();
    }
}
