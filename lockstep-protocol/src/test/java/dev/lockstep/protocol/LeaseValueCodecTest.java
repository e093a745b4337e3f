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
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A lease's {@code value} on the wire (a leader's address): acquires, replies, events, and the {@code vacant} event. */
class LeaseValueCodecTest {

    private static final Instant T0 = Instant.parse("2026-12-06T10:00:00Z");
    private final CommandDecoder decoder = new CommandDecoder(Limits.defaults());

    private ParsedCommand decode(String type, String fields) {
        return decoder.decode("r".getBytes(StandardCharsets.UTF_8), ("{\"request_id\":\"q\",\"type\":\"" + type
                + "\",\"resource\":\"r\",\"owner\":\"a\",\"ttl_seconds\":30" + fields + "}")
                .getBytes(StandardCharsets.UTF_8));
    }

    private Optional<String> value(String fields) {
        return ((Command.Acquire) ((ParsedCommand.Valid) decode("acquire", fields)).command()).value();
    }

    @Test
    void anAcquireMayNameAValue() {
        assertThat(value("")).isEmpty();
        assertThat(value(",\"value\":\"10.0.0.7:8080\"")).contains("10.0.0.7:8080");
        assertThat(value(",\"value\":\" spaced \"")).as("kept as given").contains(" spaced ");
        assertThat(value(",\"value\":\"" + "\u00e9".repeat(Limits.MAX_LEASE_VALUE_CHARS) + "\"")).isPresent();
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"\"", "null", "7", "{}", "\"a\\u0000b\"", "\"a\\u200bb\""})
    void aValueIsANonEmptyVisibleString(String value) {
        ParsedCommand parsed = decode("acquire", ",\"value\":" + value);
        assertThat(parsed).isInstanceOf(ParsedCommand.Invalid.class);
        assertThat(((ParsedCommand.Invalid) parsed).errors()).extracting(FieldError::field).containsExactly("value");
    }

    @Test
    void aValueIsBounded() {
        ParsedCommand parsed = decode("acquire", ",\"value\":\"" + "v".repeat(Limits.MAX_LEASE_VALUE_CHARS + 1) + "\"");
        assertThat(((ParsedCommand.Invalid) parsed).errors()).singleElement()
                .satisfies(e -> assertThat(e.message()).contains("at most 255"));
    }

    @Test
    void theEncoderWritesItAndTheFingerprintTellsTwoValuesApart() {
        Command.Acquire with = new Command.Acquire("q", "r", "a", Duration.ofSeconds(30), Duration.ZERO,
                Share.EXCLUSIVE, Optional.of("host:1"));
        assertThat(decoder.decode(CommandEncoder.key(with), CommandEncoder.encode(with, Optional.empty())))
                .isEqualTo(new ParsedCommand.Valid("q", new ReplyTo.Default(), with));
        Command.Acquire other = new Command.Acquire("q", "r", "a", Duration.ofSeconds(30), Duration.ZERO,
                Share.EXCLUSIVE, Optional.of("host:2"));
        Command.Acquire none = new Command.Acquire("q", "r", "a", Duration.ofSeconds(30));
        assertThat(Fingerprint.of(with)).isNotEqualTo(Fingerprint.of(other)).isNotEqualTo(Fingerprint.of(none));
    }

    @Test
    void aReplysLockShowsTheValueAndALockWithoutOneReadsAsBefore() {
        Lease lease = new Lease("r", "a", 3, T0, T0.plusSeconds(30), 0, Share.EXCLUSIVE, Optional.of("host:1"));
        Command.Acquire acquire = new Command.Acquire("q", "r", "a", Duration.ofSeconds(30));
        byte[] json = ReplyEncoder.encode(new Reply.Decided(acquire, new Verdict.Acquired(lease)));
        assertThat(new String(json, StandardCharsets.UTF_8)).contains("\"value\":\"host:1\"");
        assertThat(ReplyDecoder.decode(json).orElseThrow().reply()).isEqualTo(new Verdict.Acquired(lease));
        Lease plain = new Lease("r", "a", 3, T0, T0.plusSeconds(30));
        assertThat(new String(ReplyEncoder.encode(new Reply.Decided(acquire, new Verdict.Acquired(plain))),
                StandardCharsets.UTF_8)).doesNotContain("value");
    }

    @Test
    void aGrantAndAVacancyRoundTrip() {
        LeaseEvent granted = new LeaseEvent("t-0/1.0", LeaseEvent.Kind.GRANTED, "r", "a", 1, T0,
                Optional.of(T0.plusSeconds(30)), "t-0@0", Optional.of("q"), Optional.empty(), Optional.empty(), 0,
                Share.EXCLUSIVE, Optional.of("host:1"));
        assertThat(EventCodec.decode(EventCodec.encode(granted))).isEqualTo(granted);
        LeaseEvent vacant = new LeaseEvent("t-0/4.1", LeaseEvent.Kind.VACANT, "r", "a", 1, T0.plusSeconds(9),
                Optional.empty(), "t-0@3", Optional.of("rel"), Optional.empty(), Optional.empty());
        String text = new String(EventCodec.encode(vacant), StandardCharsets.UTF_8);
        assertThat(text).contains("\"event\":\"vacant\"").contains("\"fencing_token\":1").doesNotContain("value");
        assertThat(EventCodec.decode(EventCodec.encode(vacant))).isEqualTo(vacant);
    }

    @Test
    void onlyAnAcquireReadsAValue() {
        assertThat(decode("renew", ",\"value\":\"\"")).as("ignored, as any field a renew does not take")
                .isInstanceOf(ParsedCommand.Valid.class);
    }

    @Test
    void listedHoldersLeaveTheirValuesOut() {
        Lease a = new Lease("r", "a", 3, T0, T0.plusSeconds(30), 0, Share.shared(2), Optional.of("host:a"));
        Lease b = new Lease("r", "b", 4, T0, T0.plusSeconds(30), 1, Share.shared(2), Optional.of("host:b"));
        byte[] json = ReplyEncoder.encode(new Reply.Decided(new Command.Status("s", "r", Optional.empty()),
                new Verdict.Locked(List.of(a, b), 0, java.util.OptionalInt.empty())));
        assertThat(new String(json, StandardCharsets.UTF_8)).contains("host:a").doesNotContain("host:b");
    }
}
