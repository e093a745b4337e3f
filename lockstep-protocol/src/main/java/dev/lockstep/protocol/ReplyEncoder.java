package dev.lockstep.protocol;

import dev.lockstep.core.Command;
import dev.lockstep.core.CommandType;
import dev.lockstep.core.FieldError;
import dev.lockstep.core.Lease;
import dev.lockstep.core.Problem;
import dev.lockstep.core.Verdict;
import java.io.IOException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;

/** Writes replies as the JSON documented in {@code docs/protocol.md}, fields in a fixed order. */
public final class ReplyEncoder {

    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private ReplyEncoder() {
    }

    /**
     * {@code 2026-12-03T10:00:00.000Z}: UTC, milliseconds always written. Written by hand for the
     * four-digit years every log time has (a formatter call per reply and event was a measurable
     * part of a replay); the formatter writes any other.
     */
    public static String formatTime(Instant instant) {
        long seconds = instant.getEpochSecond();
        long days = Math.floorDiv(seconds, 86_400L);
        if (days < FIRST_DAY || days > LAST_DAY) {
            return TIME.format(instant);
        }
        LocalDate date = LocalDate.ofEpochDay(days);
        int second = (int) Math.floorMod(seconds, 86_400L);
        char[] text = new char[24];
        digits(text, 0, date.getYear(), 4);
        text[4] = '-';
        digits(text, 5, date.getMonthValue(), 2);
        text[7] = '-';
        digits(text, 8, date.getDayOfMonth(), 2);
        text[10] = 'T';
        digits(text, 11, second / 3600, 2);
        text[13] = ':';
        digits(text, 14, second / 60 % 60, 2);
        text[16] = ':';
        digits(text, 17, second % 60, 2);
        text[19] = '.';
        digits(text, 20, instant.getNano() / 1_000_000, 3);
        text[23] = 'Z';
        return new String(text);
    }

    private static final long FIRST_DAY = LocalDate.of(1000, 1, 1).toEpochDay();
    private static final long LAST_DAY = LocalDate.of(9999, 12, 31).toEpochDay();

    private static void digits(char[] text, int at, int value, int width) {
        for (int i = at + width - 1; i >= at; i--) {
            text[i] = (char) ('0' + value % 10);
            value /= 10;
        }
    }

    public static byte[] encode(Reply reply) {
        return JsonOut.write(body(reply));
    }

    static JsonOut.Body body(Reply reply) {
        return json -> {
            json.startObject();
            json.string("request_id", reply.requestId());
            if (reply instanceof Reply.Decided decided) {
                writeHeader(json, Optional.of(decided.command().type()), Optional.of(decided.command().resource()), reply);
                writeVerdict(json, decided.verdict(), decided.command());
            } else if (reply instanceof Reply.Rejected rejected) {
                writeHeader(json, rejected.type(), rejected.resource(), reply);
                writeProblem(json, rejected.problem());
            }
            json.endObject();
        };
    }

    private static void writeHeader(JsonOut json, Optional<CommandType> type, Optional<String> resource,
            Reply reply) throws IOException {
        json.string("type", type.map(CommandType::wireName).orElse(null));
        json.string("resource", resource.orElse(null));
        json.string("outcome", reply.outcome().wireName());
    }

    /** The most holders a status lists: the largest status stays far below the smallest topic limit. */
    public static final int MAX_LISTED = 8;

    private static void writeVerdict(JsonOut json, Verdict verdict, Command command) throws IOException {
        if (verdict instanceof Verdict.Acquired acquired) {
            json.bool("acquired", true);
            writeLease(json, acquired.lease());
            if (acquired.waited().isPresent()) {
                json.number("waited_ms", acquired.waited().get().toMillis());
            }
        } else if (verdict instanceof Verdict.NotAcquired notAcquired) {
            json.bool("acquired", false);
            json.number("retry_after_ms", notAcquired.retryAfter().toMillis());
            if (notAcquired.reason().isPresent()) {
                json.string("reason", notAcquired.reason().get().wireName());
            }
        } else if (verdict instanceof Verdict.Renewed renewed) {
            writeLease(json, renewed.lease());
        } else if (verdict instanceof Verdict.Locked locked) {
            writeLease(json, shown(locked, command));
            if (!locked.lease().share().exclusive()) {
                writeHolders(json, locked.holders());
            }
            // Only when some wait: a status of a resource without waiters reads as it always did.
            if (locked.waiters() > 0) {
                json.number("waiters", locked.waiters());
            }
            if (locked.position().isPresent()) {
                json.number("position", locked.position().getAsInt());
            }
        } else if (verdict instanceof Verdict.Invalid invalid) {
            writeProblem(json, invalid.problem());
        } else if (verdict instanceof Verdict.Moved moved) {
            json.number("partition", moved.partition());
            json.number("partitions", moved.partitions());
            json.string("detail", "not decided here: send the same command, with the same request_id, to partition "
                    + moved.partition() + " (a resource is decided on murmur2 of its key mod the partition count, "
                    + "as the Java client partitions; librdkafka clients set partitioner=murmur2_random)");
        }
    }

    /** A status's lease: its owner's, when it names an owner that holds one; else the first holder's. */
    private static Lease shown(Verdict.Locked locked, Command command) {
        Optional<String> owner = command instanceof Command.Status status ? status.owner() : Optional.empty();
        return locked.holders().stream().filter(lease -> owner.filter(lease::isOwnedBy).isPresent()).findFirst()
                .orElse(locked.lease());
    }

    /** A shared resource's holders: how many, and the first {@link #MAX_LISTED} by permit. */
    private static void writeHolders(JsonOut json, List<Lease> holders) throws IOException {
        json.number("holders", holders.size());
        json.startArray("listed");
        for (Lease lease : holders.subList(0, Math.min(MAX_LISTED, holders.size()))) {
            json.startObject();
            json.string("owner", lease.owner());
            json.number("fencing_token", lease.fencingToken());
            json.number("permit", lease.permit());
            json.string("acquired_at", formatTime(lease.acquiredAt()));
            json.string("expires_at", formatTime(lease.expiresAt()));
            json.endObject();
        }
        json.endArray();
    }

    private static void writeLease(JsonOut json, Lease lease) throws IOException {
        json.startObject("lock");
        json.string("resource", lease.resource());
        json.string("owner", lease.owner());
        json.number("fencing_token", lease.fencingToken());
        json.string("acquired_at", formatTime(lease.acquiredAt()));
        json.string("expires_at", formatTime(lease.expiresAt()));
        // Only for a shared lease: a lock's reads as it always did.
        if (!lease.share().exclusive()) {
            json.string("mode", lease.share().mode().wireName());
            json.number("limit", lease.share().limit());
            json.number("permit", lease.permit());
        }
        if (lease.value().isPresent()) {
            json.string("value", lease.value().get());
        }
        json.endObject();
    }

    private static void writeProblem(JsonOut json, Problem problem) throws IOException {
        json.startObject("problem");
        json.string("type", problem.type());
        json.string("title", problem.title());
        json.string("detail", problem.detail());
        json.startArray("errors");
        for (FieldError error : problem.errors()) {
            json.startObject();
            json.string("field", error.field());
            json.string("message", error.message());
            json.endObject();
        }
        json.endArray();
        json.endObject();
    }
}
