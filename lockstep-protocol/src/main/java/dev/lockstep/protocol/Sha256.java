package dev.lockstep.protocol;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-256 of a byte array. */
public final class Sha256 {

    // One per thread, reset by each digest: neither a provider lookup nor a copy of its state per call.
    private static final ThreadLocal<MessageDigest> DIGEST = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM provides SHA-256", e);
        }
    });

    private Sha256() {
    }

    /** The 32-byte digest of {@code bytes}. */
    public static byte[] of(byte[] bytes) {
        return DIGEST.get().digest(bytes);
    }

    /** The 32-byte digest of the first {@code length} bytes of {@code bytes}. */
    public static byte[] of(byte[] bytes, int length) {
        MessageDigest digest = DIGEST.get();
        digest.update(bytes, 0, length);
        return digest.digest();
    }

    /** The big-endian word at {@code from} of a digest. */
    public static long word(byte[] digest, int from) {
        long word = 0;
        for (int i = from; i < from + 8; i++) {
            word = word << 8 | (digest[i] & 0xff);
        }
        return word;
    }
}
