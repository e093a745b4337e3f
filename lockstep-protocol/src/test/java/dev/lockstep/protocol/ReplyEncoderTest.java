package dev.lockstep.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.core.Command;
import dev.lockstep.core.CommandType;
import dev.lockstep.core.FieldError;
import dev.lockstep.core.Lease;
import dev.lockstep.core.Problem;
import dev.lockstep.core.Verdict;
import dev.lockstep.core.WaitEnd;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ReplyEncoderTest {

    private static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");
    private static final Command ACQUIRE = new Command.Acquire("q1", "payment:42", "w", Duration.ofSeconds(30));

    private static String json(Reply reply) {
        return new String(ReplyEncoder.encode(reply), StandardCharsets.UTF_8);
    }

    @Test
    void acquiredCarriesTheLockWithMillisecondUtcTimes() {
        Lease lease = new Lease("payment:42", "w", 3, T0, T0.plusSeconds(30));
        assertThat(json(new Reply.Decided(ACQUIRE, new Verdict.Acquired(lease)))).isEqualTo(
                "{\"request_id\":\"q1\",\"type\":\"acquire\",\"resource\":\"payment:42\",\"outcome\":\"acquired\","
                        + "\"acquired\":true,\"lock\":{\"resource\":\"payment:42\",\"owner\":\"w\",\"fencing_token\":3,"
                        + "\"acquired_at\":\"2026-12-02T10:00:00.000Z\",\"expires_at\":\"2026-12-02T10:00:30.000Z\"}}");
    }

    @Test
    void aGrantAfterAWaitSaysHowLongItWaitedInLogTime() {
        Lease lease = new Lease("payment:42", "w", 3, T0, T0.plusSeconds(30));
        String json = json(new Reply.Decided(ACQUIRE, new Verdict.Acquired(lease, Optional.of(Duration.ofMillis(6250)))));
        assertThat(json).endsWith("\"expires_at\":\"2026-12-02T10:00:30.000Z\"},\"waited_ms\":6250}");
        assertThat(ReplyDecoder.decode(json.getBytes(StandardCharsets.UTF_8)).orElseThrow().reply())
                .isEqualTo(new Verdict.Acquired(lease, Optional.of(Duration.ofMillis(6250))));
    }

    @Test
    void notAcquiredSaysWhenToRetryButNotWhoHoldsIt() {
        String json = json(new Reply.Decided(ACQUIRE, new Verdict.NotAcquired(Duration.ofMillis(1500))));
        assertThat(json).isEqualTo("{\"request_id\":\"q1\",\"type\":\"acquire\",\"resource\":\"payment:42\","
                + "\"outcome\":\"not_acquired\",\"acquired\":false,\"retry_after_ms\":1500}");
    }

    @Test
    void aWaitThatEndedSaysWhy() {
        String json = json(new Reply.Decided(ACQUIRE, new Verdict.NotAcquired(Duration.ofMillis(700),
                Optional.of(WaitEnd.WAIT_EXPIRED))));
        assertThat(json).isEqualTo("{\"request_id\":\"q1\",\"type\":\"acquire\",\"resource\":\"payment:42\","
                + "\"outcome\":\"not_acquired\",\"acquired\":false,\"retry_after_ms\":700,\"reason\":\"wait_expired\"}");
    }

    @Test
    void invalidCarriesAProblem() {
        Reply.Rejected rejected = new Reply.Rejected("q2", Optional.of(CommandType.ACQUIRE), Optional.empty(),
                Problem.invalidCommand(List.of(new FieldError("ttl_seconds", "must be a JSON integer from 1 to 86400"))));
        assertThat(json(rejected)).isEqualTo("{\"request_id\":\"q2\",\"type\":\"acquire\",\"resource\":null,"
                + "\"outcome\":\"invalid\",\"problem\":{\"type\":\"urn:lockstep:problem:invalid-command\","
                + "\"title\":\"Invalid command\",\"detail\":\"ttl_seconds: must be a JSON integer from 1 to 86400\","
                + "\"errors\":[{\"field\":\"ttl_seconds\",\"message\":\"must be a JSON integer from 1 to 86400\"}]}}");
    }

    @Test
    void theClientDecodesEveryReplyItsTypedForm() {
        Lease lease = new Lease("payment:42", "w", 3, T0, T0.plusSeconds(30));
        Problem problem = Problem.invalidCommand(List.of(new FieldError("owner", "is required")));
        List<Reply> replies = List.of(new Reply.Decided(ACQUIRE, new Verdict.Acquired(lease)),
                new Reply.Decided(ACQUIRE, new Verdict.NotAcquired(Duration.ofMillis(250))),
                new Reply.Decided(ACQUIRE, new Verdict.NotAcquired(Duration.ZERO, Optional.of(WaitEnd.QUEUE_FULL))),
                new Reply.Decided(ACQUIRE, new Verdict.Renewed(lease)),
                new Reply.Decided(ACQUIRE, new Verdict.Released()),
                new Reply.Decided(ACQUIRE, new Verdict.Locked(lease)),
                new Reply.Decided(ACQUIRE, new Verdict.Locked(List.of(lease), 3, OptionalInt.of(2))),
                new Reply.Decided(ACQUIRE, new Verdict.NotFound()),
                new Reply.Decided(ACQUIRE, new Verdict.Forbidden()),
                new Reply.Rejected("q1", Optional.empty(), Optional.empty(), problem));
        List<Verdict> expected = List.of(new Verdict.Acquired(lease),
                new Verdict.NotAcquired(Duration.ofMillis(250)),
                new Verdict.NotAcquired(Duration.ZERO, Optional.of(WaitEnd.QUEUE_FULL)), new Verdict.Renewed(lease),
                new Verdict.Released(), new Verdict.Locked(lease), new Verdict.Locked(List.of(lease), 3, OptionalInt.of(2)),
                new Verdict.NotFound(),
                new Verdict.Forbidden(), new Verdict.Invalid(problem));
        for (int i = 0; i < replies.size(); i++) {
            byte[] bytes = ReplyEncoder.encode(replies.get(i));
            ReplyDecoder.ReplyMessage message = ReplyDecoder.decode(bytes).orElseThrow();
            assertThat(message.requestId()).isEqualTo("q1");
            assertThat(message.reply()).isEqualTo(expected.get(i));
            assertThat(message.reply().outcome()).isEqualTo(replies.get(i).outcome());
            assertThat(message.json()).isEqualTo(new String(bytes, StandardCharsets.UTF_8));
        }
    }

    @Test
    void whatIsNotALockstepReplyIsIgnored() {
        assertThat(ReplyDecoder.decode("garbage".getBytes(StandardCharsets.UTF_8))).isEmpty();
        assertThat(ReplyDecoder.decode("{\"request_id\":\"q\",\"outcome\":\"pwned\"}".getBytes(StandardCharsets.UTF_8)))
                .isEmpty();
        assertThat(ReplyDecoder.decode("{\"request_id\":\"q\",\"outcome\":\"acquired\",\"lock\":{}}"
                .getBytes(StandardCharsets.UTF_8))).isEmpty();
    }

    @Test
    void fingerprintsDifferWhenTheCommandDiffers() {
        Command other = new Command.Acquire("q1", "payment:42", "w", Duration.ofSeconds(31));
        assertThat(Fingerprint.of(ACQUIRE)).isEqualTo(Fingerprint.of(
                new Command.Acquire("q1", "payment:42", "w", Duration.ofSeconds(30))));
        assertThat(Fingerprint.of(ACQUIRE)).isNotEqualTo(Fingerprint.of(other));
    }

    @Test
    void timesAreWrittenAsTheFormatterWritesThem() {
        DateTimeFormatter formatter = DateTimeFormatter
                .ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
        Random random = new Random(3);
        List<Instant> instants = new ArrayList<>(List.of(Instant.EPOCH, Instant.parse("2026-12-31T23:59:59.999Z"),
                Instant.parse("2028-02-29T00:00:00Z"), Instant.parse("1969-12-31T23:59:59.001Z"),
                Instant.parse("0999-12-31T23:59:59.999Z"), Instant.parse("+10000-01-01T00:00:00Z")));
        for (int i = 0; i < 100_000; i++) {
            instants.add(Instant.ofEpochMilli(random.nextLong(-40_000_000_000_000L, 250_000_000_000_000L)));
        }
        for (Instant instant : instants) {
            assertThat(ReplyEncoder.formatTime(instant)).as(instant.toString()).isEqualTo(formatter.format(instant));
        }
    }
}
