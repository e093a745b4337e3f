package dev.lockstep.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.core.Command;
import dev.lockstep.core.FieldError;
import dev.lockstep.core.Lease;
import dev.lockstep.core.Share;
import dev.lockstep.core.Verdict;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code mode} and {@code limit} on the wire: commands, replies and events of shared leases. */
class ShareCodecTest {

    private static final Instant T0 = Instant.parse("2026-12-06T10:00:00Z");
    private final CommandDecoder decoder = new CommandDecoder(Limits.defaults());

    private ParsedCommand decode(String fields) {
        return decoder.decode("r".getBytes(StandardCharsets.UTF_8), ("{\"request_id\":\"q\",\"type\":\"acquire\","
                + "\"resource\":\"r\",\"owner\":\"a\",\"ttl_seconds\":30" + fields + "}").getBytes(StandardCharsets.UTF_8));
    }

    private Share share(String fields) {
        return ((Command.Acquire) ((ParsedCommand.Valid) decode(fields)).command()).share();
    }

    private List<String> errors(String fields) {
        assertThat(decode(fields)).isInstanceOf(ParsedCommand.Invalid.class);
        return ((ParsedCommand.Invalid) decode(fields)).errors().stream().map(FieldError::field).toList();
    }

    @Test
    void anAcquireAsksForTheWholeResourceOrASharedPermit() {
        assertThat(share("")).isEqualTo(Share.EXCLUSIVE);
        assertThat(share(",\"mode\":\"exclusive\"")).isEqualTo(Share.EXCLUSIVE);
        assertThat(share(",\"limit\":4")).isEqualTo(Share.shared(4));
        assertThat(share(",\"mode\":\"shared\",\"limit\":1")).isEqualTo(Share.shared(1));
        assertThat(share(",\"mode\":\"shared\"")).isEqualTo(Share.shared(Share.MAX_LIMIT));
        assertThat(share(",\"mode\":null,\"limit\":null")).isEqualTo(Share.EXCLUSIVE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "65", "-1", "\"4\"", "4.5", "true", "99999999999"})
    void aLimitIsAnIntegerFromOneToTheMaximum(String limit) {
        assertThat(errors(",\"limit\":" + limit)).containsExactly("limit");
    }

    @Test
    void aModeIsExclusiveOrSharedAndAnExclusiveOneNamesNoLimit() {
        assertThat(errors(",\"mode\":\"read\"")).containsExactly("mode");
        assertThat(errors(",\"mode\":1")).containsExactly("mode");
        assertThat(errors(",\"mode\":\"exclusive\",\"limit\":2")).containsExactly("limit");
        assertThat(errors(",\"mode\":\"shared\",\"mode\":\"shared\"")).contains("mode");
    }

    @Test
    void whatTheEncoderWritesDecodesToTheSameCommand() {
        Command shared = new Command.Acquire("q", "r", "a", Duration.ofSeconds(30), Duration.ofSeconds(5),
                Share.shared(7));
        assertThat(decoder.decode(CommandEncoder.key(shared), CommandEncoder.encode(shared, Optional.empty())))
                .isEqualTo(new ParsedCommand.Valid("q", new ReplyTo.Default(), shared));
        assertThat(new String(CommandEncoder.encode(new Command.Acquire("q", "r", "a", Duration.ofSeconds(30)),
                Optional.empty()), StandardCharsets.UTF_8)).doesNotContain("mode").doesNotContain("limit");
    }

    @Test
    void aSharedLeaseAndAStatusOfItsHoldersRoundTrip() {
        Lease first = new Lease("r", "a", 5, T0, T0.plusSeconds(30), 0, Share.shared(3));
        Lease second = new Lease("r", "b", 6, T0, T0.plusSeconds(40), 2, Share.shared(3));
        Command.Acquire acquire = new Command.Acquire("q", "r", "a", Duration.ofSeconds(30), Duration.ZERO,
                Share.shared(3));
        Verdict acquired = ReplyDecoder.decode(ReplyEncoder.encode(new Reply.Decided(acquire,
                new Verdict.Acquired(second)))).orElseThrow().reply();
        assertThat(acquired).isEqualTo(new Verdict.Acquired(second));

        Command.Status status = new Command.Status("s", "r", Optional.of("b"));
        byte[] json = ReplyEncoder.encode(new Reply.Decided(status, new Verdict.Locked(List.of(first, second), 2,
                OptionalInt.empty())));
        assertThat(new String(json, StandardCharsets.UTF_8)).contains("\"lock\":{\"resource\":\"r\",\"owner\":\"b\"")
                .contains("\"holders\":2");
        Verdict.Locked locked = (Verdict.Locked) ReplyDecoder.decode(json).orElseThrow().reply();
        assertThat(locked.holders()).containsExactly(first, second);
        assertThat(locked.waiters()).isEqualTo(2);
    }

    /** The largest status a shared resource can get stays far inside the smallest reply topic the worker takes. */
    @Test
    void theLargestStatusListsAtMostEightHoldersAndFits() {
        String resource = "\u4e00".repeat(Limits.MAX_RESOURCE_CHARS);
        List<Lease> holders = new ArrayList<>();
        for (int permit = 0; permit < Share.MAX_LIMIT; permit++) {
            holders.add(new Lease(resource, "\u4e8c".repeat(Limits.MAX_OWNER_CHARS - 2) + permit, Long.MAX_VALUE - permit,
                    T0, T0.plusSeconds(30), permit, Share.shared(Share.MAX_LIMIT),
                    Optional.of("\u56db".repeat(Limits.MAX_LEASE_VALUE_CHARS))));
        }
        Command.Status status = new Command.Status("q".repeat(Limits.MAX_REQUEST_ID_CHARS), resource,
                Optional.of("\u4e09".repeat(Limits.MAX_OWNER_CHARS)));
        byte[] json = ReplyEncoder.encode(new Reply.Decided(status, new Verdict.Locked(holders, Limits.MAX_WAITERS,
                OptionalInt.of(Limits.MAX_WAITERS))));
        assertThat(((Verdict.Locked) ReplyDecoder.decode(json).orElseThrow().reply()).holders())
                .hasSize(ReplyEncoder.MAX_LISTED);
        assertThat(json.length).as("with room for a correlation ID and the record's own overhead").isLessThan(12 * 1024);
    }

    @Test
    void aSharedLeasesEventsSayItsShareAndPermit() {
        LeaseEvent granted = new LeaseEvent("t-0/1.0", LeaseEvent.Kind.GRANTED, "r", "a", 1, T0,
                Optional.of(T0.plusSeconds(30)), "t-0@0", Optional.of("q"), Optional.empty(), Optional.empty(), 2,
                Share.shared(3));
        assertThat(EventCodec.decode(EventCodec.encode(granted))).isEqualTo(granted);
        LeaseEvent queued = new LeaseEvent("t-0/2.0", LeaseEvent.Kind.QUEUED, "r", "b", 0, T0, Optional.empty(),
                "t-0@1", Optional.of("q2"), Optional.empty(), Optional.empty(), 0, Share.shared(3));
        assertThat(new String(EventCodec.encode(queued), StandardCharsets.UTF_8)).contains("\"limit\":3")
                .doesNotContain("permit");
        assertThat(EventCodec.decode(EventCodec.encode(queued))).isEqualTo(queued);
    }
}
