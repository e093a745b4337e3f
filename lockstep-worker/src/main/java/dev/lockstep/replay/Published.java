package dev.lockstep.replay;

import java.nio.charset.StandardCharsets;

/** One record as read back from a reply or events topic. */
public record Published(int partition, long offset, String key, byte[] value) {

    String text() {
        return new String(value, StandardCharsets.UTF_8);
    }
}
