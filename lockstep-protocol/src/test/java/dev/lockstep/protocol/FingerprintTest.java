package dev.lockstep.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.core.Command;
import dev.lockstep.core.Share;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Fingerprints are stored: the same command must keep the fingerprint earlier builds gave it. */
class FingerprintTest {

    private static final String[] NAMES = {"job-1", "rapport-été", "数据-7", "emoji-\uD83D\uDD12", "x", "a".repeat(300)};

    /** The definition: SHA-256 of the UTF-8 of the fields joined by NUL, as hex. */
    private static String reference(Command command) throws NoSuchAlgorithmException {
        StringBuilder canonical = new StringBuilder().append(command.type().wireName()).append('\u0000')
                .append(command.resource()).append('\u0000');
        if (command instanceof Command.Acquire c) {
            canonical.append(c.owner()).append('\u0000').append(c.ttl().toSeconds());
            if (c.waits()) {
                canonical.append("\u0000wait\u0000").append(c.maxWait().toMillis());
            }
            if (!c.share().exclusive()) {
                canonical.append("\u0000shared\u0000").append(c.share().limit());
            }
        } else if (command instanceof Command.Renew c) {
            canonical.append(c.owner()).append('\u0000').append(c.ttl().toSeconds()).append('\u0000')
                    .append(c.fencingToken().isPresent() ? Long.toString(c.fencingToken().getAsLong()) : "-");
        } else if (command instanceof Command.Release c) {
            canonical.append(c.owner()).append('\u0000')
                    .append(c.fencingToken().isPresent() ? Long.toString(c.fencingToken().getAsLong()) : "-");
            c.cancels().ifPresent(id -> canonical.append("\u0000cancels\u0000").append(id));
        } else if (command instanceof Command.Status c) {
            c.owner().ifPresent(canonical::append);
        }
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(canonical.toString().getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void everyCommandKeepsTheFingerprintOfItsDefinition() throws NoSuchAlgorithmException {
        Random random = new Random(5);
        for (int i = 0; i < 2_000; i++) {
            String resource = NAMES[random.nextInt(NAMES.length)] + i;
            String owner = NAMES[random.nextInt(NAMES.length)];
            OptionalLong token = random.nextBoolean() ? OptionalLong.of(random.nextLong(1, Long.MAX_VALUE)) : OptionalLong.empty();
            Duration ttl = Duration.ofSeconds(1 + random.nextInt(86_400));
            Command command = switch (random.nextInt(8)) {
                case 7 -> new Command.Acquire("r" + i, resource, owner, ttl, Duration.ofMillis(random.nextInt(300_000)),
                        Share.shared(1 + random.nextInt(Share.MAX_LIMIT)));
                case 6 -> new Command.Status("r" + i, resource, Optional.of(owner));
                case 0 -> new Command.Acquire("r" + i, resource, owner, ttl);
                case 5 -> new Command.Acquire("r" + i, resource, owner, ttl, Duration.ofMillis(1 + random.nextInt(300_000)));
                case 1 -> new Command.Renew("r" + i, resource, owner, ttl, token);
                case 2 -> new Command.Release("r" + i, resource, owner, token);
                case 3 -> Command.Release.cancelling("r" + i, new Command.Acquire("a" + i, resource, owner, ttl));
                default -> new Command.Status("r" + i, resource);
            };
            Fingerprint fingerprint = Fingerprint.of(command);
            assertThat(fingerprint.hex()).as(command.toString()).isEqualTo(reference(command));
            assertThat(Fingerprint.ofHex(fingerprint.hex())).isEqualTo(fingerprint);
        }
    }

    @Test
    void onlySixtyFourHexDigitsAreAFingerprint() {
        assertThatThrownBy(() -> Fingerprint.ofHex("abc")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Fingerprint.ofHex("z".repeat(64))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aSharedAcquireIsNotARetryOfAnExclusiveOneNorOfAnotherLimit() {
        Duration ttl = Duration.ofSeconds(30);
        Fingerprint exclusive = Fingerprint.of(new Command.Acquire("r", "job", "o", ttl));
        Fingerprint four = Fingerprint.of(new Command.Acquire("r", "job", "o", ttl, Duration.ZERO, Share.shared(4)));
        Fingerprint five = Fingerprint.of(new Command.Acquire("r", "job", "o", ttl, Duration.ZERO, Share.shared(5)));
        assertThat(four).isNotEqualTo(exclusive).isNotEqualTo(five);
    }
}
