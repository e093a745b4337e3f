package dev.lockstep.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lockstep.core.Outcome;
import java.io.IOException;
import java.util.Arrays;
import java.util.Optional;

/** Reads the parts of a reply a client routes on: its request ID and outcome. */
public final class ReplyDecoder {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** A reply as received: the fields a client needs, and the JSON as the worker wrote it. */
    public record ReplyMessage(String requestId, Outcome outcome, JsonNode json) {
    }

    private ReplyDecoder() {
    }

    /** @return empty when the bytes are not a lockstep reply (they are then ignored, not trusted) */
    public static Optional<ReplyMessage> decode(byte[] value) {
        try {
            JsonNode json = MAPPER.readTree(value);
            if (json == null || !json.path("request_id").isTextual() || !json.path("outcome").isTextual()) {
                return Optional.empty();
            }
            String outcome = json.get("outcome").textValue();
            return Arrays.stream(Outcome.values())
                    .filter(o -> o.wireName().equals(outcome))
                    .findFirst()
                    .map(o -> new ReplyMessage(json.get("request_id").textValue(), o, json));
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
