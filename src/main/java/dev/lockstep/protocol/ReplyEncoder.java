package dev.lockstep.protocol;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lockstep.core.CommandType;
import dev.lockstep.core.FieldError;
import dev.lockstep.core.Lease;
import dev.lockstep.core.Problem;
import dev.lockstep.core.Verdict;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Optional;

/** Writes replies as the JSON documented in {@code docs/protocol.md}, fields in a fixed order. */
public final class ReplyEncoder {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private ReplyEncoder() {
    }

    public static String formatTime(Instant instant) {
        return TIME.format(instant);
    }

    public static byte[] encode(Reply reply) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator json = MAPPER.createGenerator(out)) {
            json.writeStartObject();
            json.writeStringField("request_id", reply.requestId());
            if (reply instanceof Reply.Decided decided) {
                writeHeader(json, Optional.of(decided.command().type()), Optional.of(decided.command().resource()), reply);
                writeVerdict(json, decided.verdict());
            } else if (reply instanceof Reply.Rejected rejected) {
                writeHeader(json, rejected.type(), rejected.resource(), reply);
                writeVerdict(json, new Verdict.Invalid(rejected.problem()));
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("writing JSON to memory failed", e);
        }
        return out.toByteArray();
    }

    private static void writeHeader(JsonGenerator json, Optional<CommandType> type, Optional<String> resource,
            Reply reply) throws IOException {
        json.writeStringField("type", type.map(CommandType::wireName).orElse(null));
        json.writeStringField("resource", resource.orElse(null));
        json.writeStringField("outcome", reply.outcome().wireName());
    }

    private static void writeVerdict(JsonGenerator json, Verdict verdict) throws IOException {
        if (verdict instanceof Verdict.Acquired acquired) {
            json.writeBooleanField("acquired", true);
            writeLease(json, acquired.lease());
        } else if (verdict instanceof Verdict.NotAcquired notAcquired) {
            json.writeBooleanField("acquired", false);
            json.writeNumberField("retry_after_ms", notAcquired.retryAfter().toMillis());
        } else if (verdict instanceof Verdict.Renewed renewed) {
            writeLease(json, renewed.lease());
        } else if (verdict instanceof Verdict.Locked locked) {
            writeLease(json, locked.lease());
        } else if (verdict instanceof Verdict.Invalid invalid) {
            writeProblem(json, invalid.problem());
        }
    }

    private static void writeLease(JsonGenerator json, Lease lease) throws IOException {
        json.writeObjectFieldStart("lock");
        json.writeStringField("resource", lease.resource());
        json.writeStringField("owner", lease.owner());
        json.writeNumberField("fencing_token", lease.fencingToken());
        json.writeStringField("acquired_at", formatTime(lease.acquiredAt()));
        json.writeStringField("expires_at", formatTime(lease.expiresAt()));
        json.writeEndObject();
    }

    private static void writeProblem(JsonGenerator json, Problem problem) throws IOException {
        json.writeObjectFieldStart("problem");
        json.writeStringField("type", problem.type());
        json.writeStringField("title", problem.title());
        json.writeStringField("detail", problem.detail());
        json.writeArrayFieldStart("errors");
        for (FieldError error : problem.errors()) {
            json.writeStartObject();
            json.writeStringField("field", error.field());
            json.writeStringField("message", error.message());
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeEndObject();
    }
}
