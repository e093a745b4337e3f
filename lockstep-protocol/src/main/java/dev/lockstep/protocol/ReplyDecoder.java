package dev.lockstep.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lockstep.core.CommandType;
import dev.lockstep.core.FieldError;
import dev.lockstep.core.Lease;
import dev.lockstep.core.Mode;
import dev.lockstep.core.Problem;
import dev.lockstep.core.Share;
import dev.lockstep.core.Verdict;
import dev.lockstep.core.WaitEnd;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/** Reads replies on the client side. Anything that is not a well-formed lockstep reply is ignored, not trusted. */
public final class ReplyDecoder {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /**
     * A reply as received.
     *
     * @param type the command type the reply names; empty in an {@code invalid} reply to a command
     *     whose type was itself invalid
     * @param resource the resource the reply names; empty as {@code type}
     * @param json the reply exactly as the worker wrote it
     */
    public record ReplyMessage(String requestId, Optional<CommandType> type, Optional<String> resource, Verdict reply,
            String json) {
    }

    private ReplyDecoder() {
    }

    public static Optional<ReplyMessage> decode(byte[] value) {
        try {
            JsonNode json = MAPPER.readTree(value);
            if (json == null || !json.path("request_id").isTextual()) {
                return Optional.empty();
            }
            Optional<CommandType> type = Optional.ofNullable(json.path("type").textValue())
                    .flatMap(CommandType::fromWireName);
            if (json.path("type").isTextual() && type.isEmpty()) {
                return Optional.empty();
            }
            Optional<String> resource = Optional.ofNullable(json.path("resource").textValue());
            return typed(json).map(reply -> new ReplyMessage(json.get("request_id").textValue(), type, resource, reply,
                    json.toString()));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static Optional<Verdict> typed(JsonNode json) {
        return switch (json.path("outcome").asText()) {
            case "acquired" -> Optional.of(new Verdict.Acquired(lease(json.path("lock")),
                    json.path("waited_ms").canConvertToLong() && json.path("waited_ms").asLong() >= 0
                            ? Optional.of(Duration.ofMillis(json.path("waited_ms").asLong())) : Optional.empty()));
            case "not_acquired" -> Optional.of(new Verdict.NotAcquired(
                    Duration.ofMillis(json.path("retry_after_ms").asLong()),
                    Optional.ofNullable(json.path("reason").textValue()).flatMap(WaitEnd::fromWire)));
            case "renewed" -> Optional.of(new Verdict.Renewed(lease(json.path("lock"))));
            case "released" -> Optional.of(new Verdict.Released());
            case "locked" -> Optional.of(new Verdict.Locked(holders(json.path("lock"), json.path("listed")),
                    json.path("waiters").asInt(0),
                    json.path("position").canConvertToInt() && json.path("position").asInt() > 0
                            ? OptionalInt.of(json.path("position").asInt()) : OptionalInt.empty()));
            case "not_found" -> Optional.of(new Verdict.NotFound());
            case "forbidden" -> Optional.of(new Verdict.Forbidden());
            case "invalid" -> Optional.of(new Verdict.Invalid(problem(json.path("problem"))));
            case "moved" -> moved(json);
            default -> Optional.empty();
        };
    }

    private static Optional<Verdict> moved(JsonNode json) {
        int partition = json.path("partition").asInt(-1);
        int partitions = json.path("partitions").asInt(0);
        return partition >= 0 && partition < partitions ? Optional.of(new Verdict.Moved(partition, partitions))
                : Optional.empty();
    }

    private static Lease lease(JsonNode lock) {
        return lease(lock.path("resource").textValue(), lock, share(lock));
    }

    /** A lease's share: a lock's when its JSON names none. */
    private static Share share(JsonNode lock) {
        return Mode.fromWireName(lock.path("mode").asText()).filter(mode -> mode == Mode.SHARED)
                .map(mode -> Share.shared(lock.path("limit").asInt())).orElse(Share.EXCLUSIVE);
    }

    private static Lease lease(String resource, JsonNode lease, Share share) {
        try {
            return new Lease(resource, lease.path("owner").textValue(), lease.path("fencing_token").asLong(),
                    Instant.parse(lease.path("acquired_at").asText()), Instant.parse(lease.path("expires_at").asText()),
                    lease.path("permit").asInt(0), share,
                    Optional.ofNullable(lease.path("value").textValue()));
        } catch (DateTimeParseException | NullPointerException e) {
            throw new IllegalArgumentException("malformed lock in reply", e);
        }
    }

    /** A status's holders: those it lists, of the lock's resource and share; a lock's one lease. */
    private static List<Lease> holders(JsonNode lock, JsonNode listed) {
        if (!listed.isArray() || listed.isEmpty()) {
            return List.of(lease(lock));
        }
        List<Lease> holders = new ArrayList<>();
        Share share = share(lock);
        listed.forEach(holder -> holders.add(lease(lock.path("resource").textValue(), holder, share)));
        return holders;
    }

    private static Problem problem(JsonNode problem) {
        List<FieldError> errors = new ArrayList<>();
        problem.path("errors").forEach(e -> errors.add(new FieldError(e.path("field").asText(), e.path("message").asText())));
        return new Problem(problem.path("type").asText(), problem.path("title").asText(), problem.path("detail").asText(),
                errors);
    }
}
