package dev.lockstep.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.core.Command;
import dev.lockstep.core.CommandType;
import dev.lockstep.core.FieldError;
import dev.lockstep.core.Lease;
import dev.lockstep.core.Problem;
import dev.lockstep.core.Verdict;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The hand-written ASCII path writes every reply and event exactly as Jackson's generator does,
 * and gives way to it for any document it cannot write so: what is published (and what a replay
 * compares byte for byte with what was published before) does not depend on which path wrote it.
 */
class JsonOutTest {

    /** Plain letters mostly; now and then what Jackson escapes or writes as multi-byte UTF-8. */
    private static final String[] PIECES = {"a", "Z", "0", "-", ":", ".", " ", "~", "job", "\"", "\\", "\n", "\t",
        "\u0001", "\u007f", "é", "中", "\uD83D\uDE00", "\u2028"};

    private static String text(Random random) {
        StringBuilder text = new StringBuilder();
        int length = 1 + random.nextInt(12);
        for (int i = 0; i < length; i++) {
            text.append(random.nextInt(10) < 8 ? PIECES[random.nextInt(9)] : PIECES[random.nextInt(PIECES.length)]);
        }
        return text.toString();
    }

    private static Reply reply(Random random) {
        String id = text(random);
        String resource = text(random);
        String owner = text(random);
        Instant at = Instant.ofEpochMilli(1_700_000_000_000L + random.nextInt(1_000_000_000));
        Lease lease = new Lease(resource, owner, 1 + random.nextInt(1_000_000), at, at.plusSeconds(1 + random.nextInt(86_400)));
        Command command = switch (random.nextInt(4)) {
            case 0 -> new Command.Acquire(id, resource, owner, Duration.ofSeconds(30));
            case 1 -> new Command.Renew(id, resource, owner, Duration.ofSeconds(30), OptionalLong.of(7));
            case 2 -> new Command.Release(id, resource, owner, OptionalLong.empty());
            default -> new Command.Status(id, resource);
        };
        Verdict verdict = switch (random.nextInt(7)) {
            case 0 -> new Verdict.Acquired(lease);
            case 1 -> new Verdict.NotAcquired(Duration.ofMillis(random.nextInt(100_000)));
            case 2 -> new Verdict.Renewed(lease);
            case 3 -> new Verdict.Released();
            case 4 -> new Verdict.Locked(lease);
            case 5 -> new Verdict.NotFound();
            default -> new Verdict.Forbidden();
        };
        if (random.nextInt(5) == 0) {
            return new Reply.Rejected(id, random.nextBoolean() ? Optional.of(CommandType.ACQUIRE) : Optional.empty(),
                    random.nextBoolean() ? Optional.of(resource) : Optional.empty(), Problem.invalidCommand(List.of(
                            new FieldError(text(random), text(random)), new FieldError("ttl_seconds", text(random)))));
        }
        return new Reply.Decided(command, verdict);
    }

    private static LeaseEvent event(Random random) {
        Instant at = Instant.ofEpochMilli(1_700_000_000_000L + random.nextInt(1_000_000_000));
        return new LeaseEvent(text(random), LeaseEvent.Kind.values()[random.nextInt(LeaseEvent.Kind.values().length)],
                text(random), text(random), 1 + random.nextInt(1_000_000), at,
                random.nextBoolean() ? Optional.of(at.plusSeconds(30)) : Optional.empty(), text(random),
                random.nextBoolean() ? Optional.of(text(random)) : Optional.empty());
    }

    @Test
    void repliesAndEventsAreTheBytesJacksonWrites() {
        Random random = new Random(5);
        int plain = 0;
        for (int i = 0; i < 20_000; i++) {
            Reply reply = reply(random);
            byte[] written = ReplyEncoder.encode(reply);
            assertThat(new String(written, StandardCharsets.UTF_8)).isEqualTo(
                    new String(JsonOut.withJackson(ReplyEncoder.body(reply)), StandardCharsets.UTF_8));
            LeaseEvent event = event(random);
            assertThat(new String(EventCodec.encode(event), StandardCharsets.UTF_8)).isEqualTo(
                    new String(JsonOut.withJackson(EventCodec.body(event)), StandardCharsets.UTF_8));
            if (new String(written, StandardCharsets.US_ASCII).equals(new String(written, StandardCharsets.UTF_8))
                    && !new String(written, StandardCharsets.UTF_8).contains("\\")) {
                plain++;
            }
        }
        assertThat(plain).as("documents the ASCII path wrote itself").isGreaterThan(1_000);
    }

    @Test
    void aDocumentWithAnyOtherCharacterIsWrittenByJackson() {
        JsonOut.Body body = json -> {
            json.startObject();
            json.string("owner", "Zürich \"main\"\n");
            json.string("missing", null);
            json.number("n", -12);
            json.bool("b", false);
            json.endObject();
        };
        assertThat(new String(JsonOut.write(body), StandardCharsets.UTF_8))
                .isEqualTo("{\"owner\":\"Zürich \\\"main\\\"\\n\",\"missing\":null,\"n\":-12,\"b\":false}");
    }
}
