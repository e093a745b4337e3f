package dev.lockstep.protocol;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lockstep.core.Command;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.OptionalLong;

/** Writes commands as the JSON documented in {@code docs/protocol.md}: what a client publishes. */
public final class CommandEncoder {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private CommandEncoder() {
    }

    /** The record key: the resource, so that every command for it lands on one partition. */
    public static byte[] key(Command command) {
        return command.resource().getBytes(StandardCharsets.UTF_8);
    }

    public static byte[] encode(Command command, Optional<String> replyTo) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(192);
        try (JsonGenerator json = MAPPER.createGenerator(out)) {
            json.writeStartObject();
            json.writeStringField("request_id", command.requestId());
            json.writeStringField("type", command.type().wireName());
            json.writeStringField("resource", command.resource());
            if (command instanceof Command.Acquire c) {
                json.writeStringField("owner", c.owner());
                json.writeNumberField("ttl_seconds", c.ttl().toSeconds());
                if (c.waits()) {
                    json.writeNumberField("wait_ms", c.maxWait().toMillis());
                }
                if (!c.share().exclusive()) {
                    json.writeStringField("mode", c.share().mode().wireName());
                    json.writeNumberField("limit", c.share().limit());
                }
                if (c.value().isPresent()) {
                    json.writeStringField("value", c.value().get());
                }
            } else if (command instanceof Command.Renew c) {
                json.writeStringField("owner", c.owner());
                json.writeNumberField("ttl_seconds", c.ttl().toSeconds());
                writeToken(json, c.fencingToken());
            } else if (command instanceof Command.Release c) {
                json.writeStringField("owner", c.owner());
                writeToken(json, c.fencingToken());
                if (c.cancels().isPresent()) {
                    json.writeStringField("cancels", c.cancels().get());
                }
            } else if (command instanceof Command.Status c && c.owner().isPresent()) {
                json.writeStringField("owner", c.owner().get());
            }
            if (replyTo.isPresent()) {
                json.writeStringField("reply_to", replyTo.get());
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("writing JSON to memory failed", e);
        }
        return out.toByteArray();
    }

    private static void writeToken(JsonGenerator json, OptionalLong token) throws IOException {
        if (token.isPresent()) {
            json.writeNumberField("fencing_token", token.getAsLong());
        }
    }
}
