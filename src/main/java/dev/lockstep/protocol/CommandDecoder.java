package dev.lockstep.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lockstep.core.Command;
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
        if (strictUtf8(value).isEmpty()) {
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
        boolean needsTtl = type.filter(t -> t == CommandType.ACQUIRE || t == CommandType.RENEW).isPresent();
        boolean takesToken = type.filter(t -> t == CommandType.RENEW || t == CommandType.RELEASE).isPresent();
        Optional<String> owner = needsOwner ? reader.text("owner", Limits.MAX_OWNER_CHARS, true) : Optional.empty();
        Optional<Duration> ttl = needsTtl ? reader.ttl(limits.maxTtl()) : Optional.empty();
        OptionalLong token = takesToken ? reader.fencingToken() : OptionalLong.empty();
        if (!reader.errors().isEmpty() || type.isEmpty() || resource.isEmpty()) {
            return new ParsedCommand.Invalid(requestId, replyTo, type, resource, reader.errors());
        }
        Command command = switch (type.get()) {
            case ACQUIRE -> new Command.Acquire(requestId, resource.get(), owner.orElseThrow(), ttl.orElseThrow());
            case RENEW -> new Command.Renew(requestId, resource.get(), owner.orElseThrow(), ttl.orElseThrow(), token);
            case RELEASE -> new Command.Release(requestId, resource.get(), owner.orElseThrow(), token);
            case STATUS -> new Command.Status(requestId, resource.get());
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

    private static Optional<String> strictUtf8(byte[] bytes) {
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

    /** Reads the top-level object keeping every occurrence of a key, so duplicates can be seen. */
    private Map<String, List<JsonNode>> readTopLevel(byte[] value) throws IOException {
        try (JsonParser parser = mapper.createParser(value)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("the value is not a JSON object");
            }
            Map<String, List<JsonNode>> fields = new LinkedHashMap<>();
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                parser.nextToken();
                JsonNode node = mapper.readTree(parser);
                fields.computeIfAbsent(name, n -> new ArrayList<>(1)).add(node);
            }
            if (parser.nextToken() != null) {
                throw new IOException("trailing content after the JSON object");
            }
            return fields;
        }
    }
}
