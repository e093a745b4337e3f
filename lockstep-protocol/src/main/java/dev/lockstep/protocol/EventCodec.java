package dev.lockstep.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lockstep.core.Share;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * Lease events as the JSON of {@code docs/protocol.md}, fields in a fixed order, so that the same
 * event is always the same bytes (a replay compares them byte for byte).
 */
public final class EventCodec {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private EventCodec() {
    }

    public static byte[] encode(LeaseEvent event) {
        return JsonOut.write(body(event));
    }

    static JsonOut.Body body(LeaseEvent event) {
        return json -> {
            json.startObject();
            json.string("event_id", event.eventId());
            json.string("event", event.kind().wireName());
            json.string("resource", event.resource());
            json.string("owner", event.owner());
            if (!event.kind().isWait()) {
                json.number("fencing_token", event.fencingToken());
            }
            json.string("at", ReplyEncoder.formatTime(event.at()));
            if (event.expiresAt().isPresent()) {
                json.string("expires_at", ReplyEncoder.formatTime(event.expiresAt().get()));
            }
            json.string("source", event.source());
            if (event.requestId().isPresent()) {
                json.string("request_id", event.requestId().get());
            }
            if (event.cancels().isPresent()) {
                json.string("cancels", event.cancels().get());
            }
            if (event.waited().isPresent()) {
                json.number("waited_ms", event.waited().get().toMillis());
            }
            // Only for a shared lease or acquire: a lock's event reads as it always did.
            if (!event.share().exclusive()) {
                json.string("mode", event.share().mode().wireName());
                json.number("limit", event.share().limit());
                if (!event.kind().isWait()) {
                    json.number("permit", event.permit());
                }
            }
            if (event.value().isPresent()) {
                json.string("value", event.value().get());
            }
            json.endObject();
        };
    }

    /**
     * Reads an event published by a worker.
     *
     * @throws IllegalArgumentException when the bytes are not such an event, saying why
     */
    public static LeaseEvent decode(byte[] value) {
        JsonNode json;
        try {
            json = MAPPER.readTree(value);
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + e.getMessage(), e);
        }
        if (json == null || !json.isObject()) {
            throw new IllegalArgumentException("not a JSON object");
        }
        LeaseEvent.Kind kind = LeaseEvent.Kind.fromWire(text(json, "event"))
                .orElseThrow(() -> new IllegalArgumentException("unknown event '" + json.path("event").asText() + "'"));
        JsonNode token = json.path("fencing_token");
        if (!kind.isWait() && !token.canConvertToExactIntegral()) {
            throw new IllegalArgumentException("fencing_token is not an integer");
        }
        JsonNode waited = json.path("waited_ms");
        return new LeaseEvent(text(json, "event_id"), kind, text(json, "resource"), text(json, "owner"),
                kind.isWait() ? 0 : token.asLong(), time(json, "at"),
                optional(json, "expires_at").map(t -> parseTime("expires_at", t)), text(json, "source"),
                optional(json, "request_id"), optional(json, "cancels"),
                waited.canConvertToExactIntegral() ? Optional.of(Duration.ofMillis(waited.asLong())) : Optional.empty(),
                json.path("permit").asInt(0), share(json), optional(json, "value"));
    }

    /** The event's share: a lock's when it names none. */
    private static Share share(JsonNode json) {
        if (!"shared".equals(json.path("mode").asText())) {
            return Share.EXCLUSIVE;
        }
        JsonNode limit = json.path("limit");
        if (!limit.canConvertToInt() || limit.asInt() < 1 || limit.asInt() > Share.MAX_LIMIT) {
            throw new IllegalArgumentException("limit is not an integer from 1 to " + Share.MAX_LIMIT);
        }
        return Share.shared(limit.asInt());
    }

    private static String text(JsonNode json, String field) {
        return optional(json, field).orElseThrow(() -> new IllegalArgumentException(field + " is missing"));
    }

    private static Optional<String> optional(JsonNode json, String field) {
        JsonNode node = json.get(field);
        return node != null && node.isTextual() ? Optional.of(node.asText()) : Optional.empty();
    }

    private static Instant time(JsonNode json, String field) {
        return parseTime(field, text(json, field));
    }

    private static Instant parseTime(String field, String text) {
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(field + " is not an ISO-8601 instant: " + text, e);
        }
    }
}
