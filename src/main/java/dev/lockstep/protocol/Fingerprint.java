package dev.lockstep.protocol;

import dev.lockstep.core.Command;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.OptionalLong;

/**
 * A digest of what a command asks for, stored beside its reply. A {@code request_id} sent again
 * with the same fingerprint is a retry and gets the stored reply; with another fingerprint it is
 * a different command reusing the id, and must not be handed someone else's answer.
 * Where the reply goes ({@code reply_to}, headers) is not part of it: a retry may be routed anew.
 */
public final class Fingerprint {

    private Fingerprint() {
    }

    public static String of(Command command) {
        StringBuilder canonical = new StringBuilder()
                .append(command.type().wireName()).append('\u0000')
                .append(command.resource()).append('\u0000');
        if (command instanceof Command.Acquire c) {
            canonical.append(c.owner()).append('\u0000').append(c.ttl().toSeconds());
        } else if (command instanceof Command.Renew c) {
            canonical.append(c.owner()).append('\u0000').append(c.ttl().toSeconds()).append('\u0000')
                    .append(token(c.fencingToken()));
        } else if (command instanceof Command.Release c) {
            canonical.append(c.owner()).append('\u0000').append(token(c.fencingToken()));
        }
        return sha256(canonical.toString());
    }

    private static String token(OptionalLong token) {
        return token.isPresent() ? Long.toString(token.getAsLong()) : "-";
    }

    private static final MessageDigest SHA_256;

    static {
        try {
            SHA_256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM provides SHA-256", e);
        }
    }

    private static String sha256(String text) {
        // A clone is far cheaper than a provider lookup, and each caller gets its own.
        MessageDigest digest;
        try {
            digest = (MessageDigest) SHA_256.clone();
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("the JDK's SHA-256 can be cloned", e);
        }
        return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
    }
}
