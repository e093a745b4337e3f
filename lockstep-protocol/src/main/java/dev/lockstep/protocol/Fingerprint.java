package dev.lockstep.protocol;

import dev.lockstep.core.Command;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.OptionalLong;

/**
 * A digest of what a command asks for (SHA-256), stored beside its reply. A {@code request_id}
 * sent again with the same fingerprint is a retry and gets the stored reply; with another
 * fingerprint it is a different command reusing the id, and must not be handed someone else's
 * answer. Where the reply goes ({@code reply_to}, headers) is not part of it: a retry may be
 * routed anew. Held as four words, because the request entries of a retention window hold one
 * each; written as hex where it is stored.
 */
public record Fingerprint(long w0, long w1, long w2, long w3) {

    public static Fingerprint of(Command command) {
        Canonical canonical = CANONICAL.get().reset()
                .text(command.type().wireName()).separator()
                .text(command.resource()).separator();
        if (command instanceof Command.Acquire c) {
            canonical.text(c.owner()).separator().text(Long.toString(c.ttl().toSeconds()));
            // Only when it waits: the fingerprints stored for acquires before waiting stay as they were.
            if (c.waits()) {
                canonical.separator().text("wait").separator().text(Long.toString(c.maxWait().toMillis()));
            }
            // Only when shared: the fingerprints stored for exclusive acquires stay as they were.
            if (!c.share().exclusive()) {
                canonical.separator().text("shared").separator().text(Integer.toString(c.share().limit()));
            }
            // Only when given: the fingerprints stored for acquires before values stay as they were.
            c.value().ifPresent(value -> canonical.separator().text("value").separator().text(value));
        } else if (command instanceof Command.Renew c) {
            canonical.text(c.owner()).separator().text(Long.toString(c.ttl().toSeconds())).separator()
                    .text(token(c.fencingToken()));
        } else if (command instanceof Command.Release c) {
            canonical.text(c.owner()).separator().text(token(c.fencingToken()));
            // Only when given: the fingerprints stored for releases before cancellations stay as they were.
            c.cancels().ifPresent(id -> canonical.separator().text("cancels").separator().text(id));
        } else if (command instanceof Command.Status c) {
            // Only when given: the fingerprints stored for statuses before positions stay as they were.
            c.owner().ifPresent(owner -> canonical.text(owner));
        }
        return ofDigest(canonical.digest());
    }

    private static final ThreadLocal<Canonical> CANONICAL = ThreadLocal.withInitial(Canonical::new);

    /**
     * The UTF-8 of the fields joined by NUL, which is what is digested (stored fingerprints depend
     * on it), built in a buffer of the thread's: every command is fingerprinted.
     */
    private static final class Canonical {

        private byte[] bytes = new byte[256];
        private int length;

        Canonical reset() {
            length = 0;
            return this;
        }

        Canonical separator() {
            room(1);
            bytes[length++] = 0;
            return this;
        }

        Canonical text(String text) {
            room(text.length());
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c >= 0x80) {
                    return utf8(text, i);
                }
                bytes[length + i] = (byte) c;
            }
            length += text.length();
            return this;
        }

        /** The rest of a text from its first character beyond ASCII, through the JDK's encoder. */
        private Canonical utf8(String text, int from) {
            byte[] rest = text.substring(from).getBytes(StandardCharsets.UTF_8);
            length += from;
            room(rest.length);
            System.arraycopy(rest, 0, bytes, length, rest.length);
            length += rest.length;
            return this;
        }

        private void room(int more) {
            if (length + more > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
            }
        }

        byte[] digest() {
            return Sha256.of(bytes, length);
        }
    }

    /** Reads the 64 hex digits {@link #hex()} writes. */
    public static Fingerprint ofHex(String hex) {
        if (hex.length() != 64) {
            throw new IllegalArgumentException("a fingerprint is 64 hex digits, not " + hex.length() + " characters");
        }
        return ofDigest(HexFormat.of().parseHex(hex));
    }

    public String hex() {
        HexFormat hex = HexFormat.of();
        return hex.toHexDigits(w0) + hex.toHexDigits(w1) + hex.toHexDigits(w2) + hex.toHexDigits(w3);
    }

    private static Fingerprint ofDigest(byte[] sha) {
        return new Fingerprint(Sha256.word(sha, 0), Sha256.word(sha, 8), Sha256.word(sha, 16), Sha256.word(sha, 24));
    }

    private static String token(OptionalLong token) {
        return token.isPresent() ? Long.toString(token.getAsLong()) : "-";
    }

    @Override
    public String toString() {
        return hex();
    }
}
