package dev.lockstep.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lockstep.core.Command;
import dev.lockstep.core.CommandType;
import dev.lockstep.core.FieldError;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CommandDecoderTest {

    private final CommandDecoder decoder = new CommandDecoder(Limits.defaults());

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private ParsedCommand decode(String key, String json) {
        return decoder.decode(key == null ? null : utf8(key), utf8(json));
    }

    private ParsedCommand.Invalid invalid(String key, String json) {
        ParsedCommand parsed = decode(key, json);
        assertThat(parsed).isInstanceOf(ParsedCommand.Invalid.class);
        return (ParsedCommand.Invalid) parsed;
    }

    private static String acquireWithTtl(String ttl) {
        return "{\"request_id\":\"q\",\"type\":\"acquire\",\"resource\":\"r\",\"owner\":\"a\",\"ttl_seconds\":" + ttl + "}";
    }

    @Test
    void decodesEachCommandType() {
        assertThat(decode("r", acquireWithTtl("30")))
                .isEqualTo(new ParsedCommand.Valid("q", new ReplyTo.Default(),
                        new Command.Acquire("q", "r", "a", Duration.ofSeconds(30))));
        assertThat(((ParsedCommand.Valid) decode("r",
                "{\"request_id\":\"q\",\"type\":\"renew\",\"resource\":\"r\",\"owner\":\"a\",\"ttl_seconds\":5,"
                        + "\"fencing_token\":3}")).command())
                .isEqualTo(new Command.Renew("q", "r", "a", Duration.ofSeconds(5), OptionalLong.of(3)));
        assertThat(((ParsedCommand.Valid) decode("r",
                "{\"request_id\":\"q\",\"type\":\"release\",\"resource\":\"r\",\"owner\":\"a\"}")).command())
                .isEqualTo(new Command.Release("q", "r", "a", OptionalLong.empty()));
        assertThat(((ParsedCommand.Valid) decode("r",
                "{\"request_id\":\"q\",\"type\":\"status\",\"resource\":\"r\"}")).command())
                .isEqualTo(new Command.Status("q", "r"));
    }

    @Test
    void roundTripsWhatTheEncoderWrites() {
        Command command = new Command.Renew("id-1", "payment:42", "w", Duration.ofSeconds(9), OptionalLong.of(4));
        ParsedCommand parsed = decoder.decode(CommandEncoder.key(command),
                CommandEncoder.encode(command, Optional.of("lock.replies.svc")));
        assertThat(parsed).isEqualTo(new ParsedCommand.Valid("id-1", new ReplyTo.Named("lock.replies.svc"), command));
    }

    @Test
    void ignoresUnknownFields() {
        assertThat(decode("r", "{\"request_id\":\"q\",\"type\":\"status\",\"resource\":\"r\",\"trace\":{\"x\":1}}"))
                .isInstanceOf(ParsedCommand.Valid.class);
    }

    @Test
    void trimsOwners() {
        Command c = ((ParsedCommand.Valid) decode("r", "{\"request_id\":\"q\",\"type\":\"release\",\"resource\":\"r\","
                + "\"owner\":\"  w-1 \"}")).command();
        assertThat(((Command.Release) c).owner()).isEqualTo("w-1");
    }

    @ParameterizedTest // ATK-05, ATK-08 and the list
    @ValueSource(strings = {"0", "-100", "\"3600\"", "60.5", "1e3", "null", "true", "86401",
            "99999999999999999999999", "[1]", "{\"s\":1}"})
    void rejectsTtlsThatAreNotIntegersInBounds(String ttl) {
        ParsedCommand.Invalid invalid = invalid("r", acquireWithTtl(ttl));
        assertThat(invalid.errors()).extracting(FieldError::field).containsExactly("ttl_seconds");
        assertThat(invalid.type()).contains(CommandType.ACQUIRE);
        assertThat(invalid.resource()).contains("r");
    }

    @Test
    void anAcquireMayWaitUpToTheMaximumAndRoundTrips() {
        Command waits = ((ParsedCommand.Valid) decode("r", "{\"request_id\":\"q\",\"type\":\"acquire\",\"resource\":\"r\","
                + "\"owner\":\"a\",\"ttl_seconds\":30,\"wait_ms\":" + Limits.MAX_WAIT.toMillis() + "}")).command();
        assertThat(waits).isEqualTo(new Command.Acquire("q", "r", "a", Duration.ofSeconds(30), Limits.MAX_WAIT));
        assertThat(decoder.decode(CommandEncoder.key(waits), CommandEncoder.encode(waits, Optional.empty())))
                .isEqualTo(new ParsedCommand.Valid("q", new ReplyTo.Default(), waits));
        assertThat(((Command.Acquire) ((ParsedCommand.Valid) decode("r", acquireWithTtl("30").replace("}",
                ",\"wait_ms\":0}"))).command()).waits()).as("0: answered at once").isFalse();
        assertThat(new String(CommandEncoder.encode(new Command.Acquire("q", "r", "a", Duration.ofSeconds(30)),
                Optional.empty()), StandardCharsets.UTF_8)).as("an acquire that does not wait is written as before")
                .doesNotContain("wait_ms");
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "300001", "\"100\"", "1.5", "true", "[1]", "99999999999999999999999"})
    void rejectsWaitsThatAreNotIntegersInBounds(String wait) {
        ParsedCommand.Invalid invalid = invalid("r", acquireWithTtl("30").replace("}", ",\"wait_ms\":" + wait + "}"));
        assertThat(invalid.errors()).extracting(FieldError::field).containsExactly("wait_ms");
    }

    @Test
    void aStatusMayNameAnOwnerToLearnItsPlaceInLine() {
        assertThat(((ParsedCommand.Valid) decode("r",
                "{\"request_id\":\"q\",\"type\":\"status\",\"resource\":\"r\",\"owner\":\" a \"}")).command())
                .as("trimmed as any owner").isEqualTo(new Command.Status("q", "r", Optional.of("a")));
        assertThat(invalid("r", "{\"request_id\":\"q\",\"type\":\"status\",\"resource\":\"r\",\"owner\":7}")
                .errors()).containsExactly(new FieldError("owner", "must be a string"));
        assertThat(invalid("r", "{\"request_id\":\"q\",\"type\":\"status\",\"resource\":\"r\",\"owner\":\""
                + "o".repeat(256) + "\"}").errors()).extracting(FieldError::field).containsExactly("owner");
        Command status = new Command.Status("q", "r", Optional.of("w"));
        assertThat(decoder.decode(CommandEncoder.key(status), CommandEncoder.encode(status, Optional.empty())))
                .as("round trip").isEqualTo(new ParsedCommand.Valid("q", new ReplyTo.Default(), status));
    }

    @Test
    void aWaitIsAnAcquiresAlone() {
        assertThat(decode("r", "{\"request_id\":\"q\",\"type\":\"status\",\"resource\":\"r\",\"wait_ms\":-5}"))
                .as("ignored as any unknown field").isInstanceOf(ParsedCommand.Valid.class);
    }

    @Test
    void acceptsTheTtlBounds() {
        assertThat(decode("r", acquireWithTtl("1"))).isInstanceOf(ParsedCommand.Valid.class);
        assertThat(decode("r", acquireWithTtl("86400"))).isInstanceOf(ParsedCommand.Valid.class);
    }

    @Test
    void requiresATtlForAcquireAndRenew() {
        assertThat(invalid("r", "{\"request_id\":\"q\",\"type\":\"renew\",\"resource\":\"r\",\"owner\":\"a\"}").errors())
                .containsExactly(new FieldError("ttl_seconds", "is required"));
    }

    @ParameterizedTest // ATK-07
    @ValueSource(strings = {"\"\"", "\" \"", "\"\\t\\n \"", "null", "42", "{\"name\":\"a\"}"})
    void rejectsEmptyOrNonStringOwners(String owner) {
        ParsedCommand.Invalid invalid = invalid("r",
                "{\"request_id\":\"q\",\"type\":\"release\",\"resource\":\"r\",\"owner\":" + owner + "}");
        assertThat(invalid.errors()).extracting(FieldError::field).containsExactly("owner");
    }

    @Test
    void boundsResourceLengthAt255Characters() { // ATK-12
        String ok = "x".repeat(255);
        String tooLong = "x".repeat(256);
        assertThat(decode(ok, "{\"request_id\":\"q\",\"type\":\"status\",\"resource\":\"" + ok + "\"}"))
                .isInstanceOf(ParsedCommand.Valid.class);
        assertThat(invalid(tooLong, "{\"request_id\":\"q\",\"type\":\"status\",\"resource\":\"" + tooLong + "\"}")
                .errors()).containsExactly(new FieldError("resource", "must be at most 255 characters"));
    }

    @Test
    void countsCharactersNotUtf16Units() {
        String emoji = "\uD83D\uDD12".repeat(255); // 255 code points, 510 UTF-16 units
        assertThat(decode(emoji, "{\"request_id\":\"q\",\"type\":\"status\",\"resource\":\"" + emoji + "\"}"))
                .isInstanceOf(ParsedCommand.Valid.class);
    }

    @Test
    void boundsOwnerLength() {
        String owner = "o".repeat(256);
        assertThat(invalid("r", "{\"request_id\":\"q\",\"type\":\"release\",\"resource\":\"r\",\"owner\":\"" + owner
                + "\"}").errors()).extracting(FieldError::field).containsExactly("owner");
    }

    @Test
    void takesSqlLookingResourcesLiterally() { // ATK-06
        String resource = "resource'; DROP TABLE distributed_locks; --";
        assertThat(decode(resource, "{\"request_id\":\"q\",\"type\":\"status\",\"resource\":\"" + resource + "\"}"))
                .isEqualTo(new ParsedCommand.Valid("q", new ReplyTo.Default(), new Command.Status("q", resource)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"a\\u0000b", "line\\nbreak", "\\u001b[31m", "\\ud800"})
    void rejectsControlCharactersAndBrokenUnicodeInResources(String resource) {
        ParsedCommand.Invalid invalid = invalid("k",
                "{\"request_id\":\"q\",\"type\":\"status\",\"resource\":\"" + resource + "\"}");
        assertThat(invalid.errors()).extracting(FieldError::field).contains("resource");
    }

    @Test
    void requiresTheKeyToBeTheResource() {
        assertThat(invalid("other", "{\"request_id\":\"q\",\"type\":\"status\",\"resource\":\"r\"}").errors())
                .containsExactly(new FieldError("resource", "must equal the record key"));
        assertThat(invalid(null, "{\"request_id\":\"q\",\"type\":\"status\",\"resource\":\"r\"}").errors())
                .extracting(FieldError::field).containsExactly("resource");
    }

    @Test
    void rejectsDuplicateKeys() {
        ParsedCommand.Invalid invalid = invalid("r", "{\"request_id\":\"q\",\"type\":\"release\",\"resource\":\"r\","
                + "\"owner\":\"a\",\"owner\":\"b\"}");
        assertThat(invalid.errors()).contains(new FieldError("owner", "is given more than once"));
    }

    @Test
    void reportsEveryProblemAtOnce() {
        ParsedCommand.Invalid invalid = invalid("r", "{\"request_id\":\"q\",\"type\":\"acquire\",\"resource\":\"r\","
                + "\"owner\":\"\",\"ttl_seconds\":\"9\"}");
        assertThat(invalid.errors()).extracting(FieldError::field).containsExactly("owner", "ttl_seconds");
        assertThat(invalid.problem().detail()).contains("owner").contains("ttl_seconds");
    }

    @Test
    void rejectsUnknownTypes() {
        ParsedCommand.Invalid invalid = invalid("r", "{\"request_id\":\"q\",\"type\":\"steal\",\"resource\":\"r\"}");
        assertThat(invalid.type()).isEmpty();
        assertThat(invalid.errors()).extracting(FieldError::field).containsExactly("type");
    }

    @Test
    void rejectsNonPositiveOrNonIntegerFencingTokens() {
        for (String token : List.of("0", "-1", "\"7\"", "1.5", "null")) {
            assertThat(invalid("r", "{\"request_id\":\"q\",\"type\":\"release\",\"resource\":\"r\",\"owner\":\"a\","
                    + "\"fencing_token\":" + token + "}").errors())
                    .extracting(FieldError::field).containsExactly("fencing_token");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "not json", "[1,2]", "\"text\"", "{\"request_id\":\"q\"", "{\"request_id\":\"q\"} x",
            "{\"type\":\"status\",\"resource\":\"r\"}", "{\"request_id\":\"\",\"type\":\"status\"}",
            "{\"request_id\":42}", "{\"request_id\":\"a\",\"request_id\":\"b\"}", "{\"request_id\":\"a\\u0000\"}"})
    void deadLettersWhatCannotBeAnswered(String value) {
        assertThat(decoder.decode(utf8("r"), utf8(value))).isInstanceOf(ParsedCommand.Unreadable.class);
    }

    @Test
    void boundsTheRequestIdAt128Characters() {
        assertThat(decode("r", "{\"request_id\":\"" + "i".repeat(128) + "\",\"type\":\"status\",\"resource\":\"r\"}"))
                .isInstanceOf(ParsedCommand.Valid.class);
        assertThat(decode("r", "{\"request_id\":\"" + "i".repeat(129) + "\",\"type\":\"status\",\"resource\":\"r\"}"))
                .isInstanceOf(ParsedCommand.Unreadable.class);
    }

    @Test
    void deadLettersInvalidUtf8AndOversizedValuesUnread() {
        byte[] broken = {'{', '"', 'r', 'e', (byte) 0xC3, (byte) 0x28, '"', ':', '1', '}'};
        assertThat(decoder.decode(utf8("r"), broken)).isInstanceOf(ParsedCommand.Unreadable.class);
        byte[] huge = utf8("{\"request_id\":\"q\",\"pad\":\"" + "x".repeat(20_000) + "\"}");
        assertThat(decoder.decode(utf8("r"), huge))
                .isEqualTo(new ParsedCommand.Unreadable("record value of " + huge.length
                        + " bytes exceeds the limit of 16384"));
    }

    @Test
    void deadLettersOverlongUtf8ThatAJsonParserWouldReadAsASlash() {
        byte[] prefix = utf8("{\"request_id\":\"q\",\"type\":\"status\",\"resource\":\"..");
        byte[] value = new byte[prefix.length + 4];
        System.arraycopy(prefix, 0, value, 0, prefix.length);
        value[prefix.length] = (byte) 0xC0;
        value[prefix.length + 1] = (byte) 0xAF;
        value[prefix.length + 2] = '"';
        value[prefix.length + 3] = '}';

        assertThat(decoder.decode(utf8("../"), value))
                .isEqualTo(new ParsedCommand.Unreadable("record value is not valid UTF-8"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"r\u200bx", "r\u202ex", "\ufeffr", "r\u2060x", "r\u00adx", "r\ue000", "r\u0378",
        "r\u2028x", "cafe\u0301"})
    void refusesInvisibleUnassignedAndUnnormalizedText(String escaped) {
        String resource = unescape(escaped);

        ParsedCommand.Invalid invalid = invalid(resource,
                "{\"request_id\":\"q\",\"type\":\"status\",\"resource\":\"" + escaped + "\"}");

        assertThat(invalid.errors()).extracting(FieldError::field).containsExactly("resource");
    }

    private static String unescape(String jsonEscaped) {
        try {
            return new ObjectMapper().readTree("\"" + jsonEscaped + "\"").textValue();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void acceptsLettersOfEveryScriptAndPrecomposedAccents() {
        for (String resource : List.of("caf\u00e9", "r\u0435s", "\u8cc7\u6e90", "\uD83D\uDD12-lock")) {
            assertThat(decode(resource, "{\"request_id\":\"q\",\"type\":\"status\",\"resource\":\"" + resource + "\"}"))
                    .as(resource).isInstanceOf(ParsedCommand.Valid.class);
        }
    }

    @Test
    void readsReplyTo() {
        assertThat(((ParsedCommand.Answerable) decode("r",
                "{\"request_id\":\"q\",\"type\":\"status\",\"resource\":\"r\",\"reply_to\":\"lock.replies.a\"}")).replyTo())
                .isEqualTo(new ReplyTo.Named("lock.replies.a"));
        assertThat(((ParsedCommand.Answerable) decode("r",
                "{\"request_id\":\"q\",\"type\":\"status\",\"resource\":\"r\",\"reply_to\":7}")).replyTo())
                .isInstanceOf(ReplyTo.Malformed.class);
    }
}
