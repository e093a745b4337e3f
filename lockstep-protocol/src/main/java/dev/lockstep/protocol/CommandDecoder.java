package dev.lockstep.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.lockstep.core.Command;
import dev.lockstep.core.Share;
import dev.lockstep.core.CommandType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Reads one command record (key + value) into a {@link ParsedCommand}, trusting nothing.
 *
 * <p>Every field is checked and every problem reported at once, so a caller fixes its command
 * in one round trip. Duplicate keys are detected (a JSON object with two {@code owner}s means
 * different things to different parsers); unknown fields are ignored so that producers can add
 * their own metadata.
 */
public final class CommandDecoder {

    private final Limits limits;
    private final ObjectMapper mapper;

    public CommandDecoder(Limits limits) {
        this.limits = limits;
        // No string can be longer than the value that holds it; nothing legitimate nests deeply.
        this.mapper = new ObjectMapper(JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(16)
                        .maxNumberLength(32)
                        .maxStringLength(limits.maxValueBytes())
                        .build())
                .build());
    }

    public ParsedCommand decode(byte[] key, byte[] value) {
        if (value == null || value.length == 0) {
            return new ParsedCommand.Unreadable("empty record value");
        }
        if (value.length > limits.maxValueBytes()) {
            return new ParsedCommand.Unreadable(
                    "record value of " + value.length + " bytes exceeds the limit of " + limits.maxValueBytes());
        }
        if (!isAscii(value) && strictUtf8(value).isEmpty()) {
            // The JSON parser accepts some malformed UTF-8 (overlong forms: C0 AF reads as '/').
            return new ParsedCommand.Unreadable("record value is not valid UTF-8");
        }
        Map<String, List<JsonNode>> fields;
        try {
            fields = readTopLevel(value);
        } catch (JsonProcessingException e) {
            return new ParsedCommand.Unreadable("not a JSON object: " + e.getOriginalMessage());
        } catch (IOException e) {
            return new ParsedCommand.Unreadable("not a JSON object: " + e.getMessage());
        }
        List<JsonNode> ids = fields.getOrDefault("request_id", List.of());
        if (ids.size() != 1) {
            return new ParsedCommand.Unreadable(ids.isEmpty() ? "request_id is missing" : "request_id is given twice");
        }
        Optional<String> idProblem = Text.check(ids.get(0), Limits.MAX_REQUEST_ID_CHARS);
        if (idProblem.isPresent()) {
            return new ParsedCommand.Unreadable("request_id " + idProblem.get());
        }
        return decodeFields(ids.get(0).textValue(), decodeKey(key), fields);
    }

    private ParsedCommand decodeFields(String requestId, Optional<String> key, Map<String, List<JsonNode>> fields) {
        ReplyTo replyTo = replyTo(fields.get("reply_to"));
        FieldReader reader = new FieldReader(fields);
        Optional<CommandType> type = reader.type();
        Optional<String> resource = reader.text("resource", Limits.MAX_RESOURCE_CHARS, false);
        if (resource.isPresent() && !resource.equals(key)) {
            reader.error("resource", key.isEmpty()
                    ? "the record key is missing; it must equal the resource"
                    : "must equal the record key");
        }
        boolean needsOwner = type.isPresent() && type.get() != CommandType.STATUS;
        boolean asksPosition = type.filter(t -> t == CommandType.STATUS).isPresent() && fields.containsKey("owner");
        boolean needsTtl = type.filter(t -> t == CommandType.ACQUIRE || t == CommandType.RENEW).isPresent();
        boolean takesToken = type.filter(t -> t == CommandType.RENEW || t == CommandType.RELEASE).isPresent();
        Optional<String> owner = needsOwner || asksPosition
                ? reader.text("owner", Limits.MAX_OWNER_CHARS, true) : Optional.empty();
        Optional<Duration> ttl = needsTtl ? reader.ttl(limits.maxTtl()) : Optional.empty();
        boolean acquires = type.filter(t -> t == CommandType.ACQUIRE).isPresent();
        Duration wait = acquires ? reader.waitMs() : Duration.ZERO;
        Share share = acquires ? reader.share() : Share.EXCLUSIVE;
        Optional<String> leaseValue = acquires && fields.containsKey("value")
                ? reader.text("value", Limits.MAX_LEASE_VALUE_CHARS, false) : Optional.empty();
        OptionalLong token = takesToken ? reader.fencingToken() : OptionalLong.empty();
        Optional<String> cancels = type.filter(t -> t == CommandType.RELEASE).isPresent() && fields.containsKey("cancels")
                ? reader.text("cancels", Limits.MAX_REQUEST_ID_CHARS, false) : Optional.empty();
        if (cancels.isPresent() && fields.containsKey("fencing_token")) {
            reader.error("cancels", "is not given with fencing_token: the lease it releases is the one the cancelled "
                    + "acquire granted, whatever its token");
        }
        if (!reader.errors().isEmpty() || type.isEmpty() || resource.isEmpty()) {
            return new ParsedCommand.Invalid(requestId, replyTo, type, resource, reader.errors());
        }
        Command command = switch (type.get()) {
            case ACQUIRE -> new Command.Acquire(requestId, resource.get(), owner.orElseThrow(), ttl.orElseThrow(), wait,
                    share, leaseValue);
            case RENEW -> new Command.Renew(requestId, resource.get(), owner.orElseThrow(), ttl.orElseThrow(), token);
            case RELEASE -> new Command.Release(requestId, resource.get(), owner.orElseThrow(), token, cancels);
            case STATUS -> new Command.Status(requestId, resource.get(), owner);
        };
        return new ParsedCommand.Valid(requestId, replyTo, command);
    }

    private static ReplyTo replyTo(List<JsonNode> nodes) {
        if (nodes == null || nodes.size() == 1 && nodes.get(0).isNull()) {
            return new ReplyTo.Default();
        }
        if (nodes.size() > 1) {
            return new ReplyTo.Malformed("reply_to is given twice");
        }
        JsonNode node = nodes.get(0);
        return node.isTextual() ? new ReplyTo.Named(node.textValue()) : new ReplyTo.Malformed("reply_to is not a string");
    }

    private static Optional<String> decodeKey(byte[] key) {
        return key == null ? Optional.empty() : strictUtf8(key);
    }

    static Optional<String> strictUtf8(byte[] bytes) {
        if (isAscii(bytes)) {
            // Nearly every command is ASCII, which is valid UTF-8 as it is: no decoder needed.
            return Optional.of(new String(bytes, StandardCharsets.US_ASCII));
        }
        try {
            return Optional.of(StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }

    private static boolean isAscii(byte[] bytes) {
        for (byte b : bytes) {
            if (b < 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * The next value as the node {@code mapper.readTree} makes of it. Scalars, which is what a
     * command's fields are, are made here: a tree read sets up a deserialization context per value,
     * a measurable part of decoding a command. Anything else is left to the mapper.
     */
    private JsonNode readValue(JsonParser parser) throws IOException {
        JsonToken token = parser.nextToken();
        if (token == null) {
            return mapper.readTree(parser);
        }
        return switch (token) {
            case VALUE_STRING -> TextNode.valueOf(parser.getText());
            case VALUE_NUMBER_INT -> switch (parser.getNumberType()) {
                case INT -> IntNode.valueOf(parser.getIntValue());
                case LONG -> LongNode.valueOf(parser.getLongValue());
                default -> BigIntegerNode.valueOf(parser.getBigIntegerValue());
            };
            case VALUE_TRUE -> BooleanNode.TRUE;
            case VALUE_FALSE -> BooleanNode.FALSE;
            case VALUE_NULL -> NullNode.getInstance();
            default -> mapper.readTree(parser);
        };
    }

    /** Reads the top-level object keeping every occurrence of a key, so duplicates can be seen. */
    private Map<String, List<JsonNode>> readTopLevel(byte[] value) throws IOException {
        try (JsonParser parser = mapper.createParser(value)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("the value is not a JSON object");
            }
            Map<String, List<JsonNode>> fields = new LinkedHashMap<>();
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                fields.computeIfAbsent(name, n -> new ArrayList<>(1)).add(readValue(parser));
            }
            if (parser.nextToken() != null) {
                throw new IOException("trailing content after the JSON object");
            }
            return fields;
        }
    }
}
