package dev.lockstep.engine;

import dev.lockstep.core.FieldError;
import dev.lockstep.protocol.CommandDecoder;
import dev.lockstep.protocol.DeadLetterHeaders;
import dev.lockstep.protocol.Growth;
import dev.lockstep.protocol.HandOver;
import dev.lockstep.protocol.Limits;
import dev.lockstep.protocol.ParsedCommand;
import dev.lockstep.protocol.Reply;
import dev.lockstep.protocol.ReplyTo;
import dev.lockstep.protocol.Tick;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Decodes a record, checks that it is on its resource's partition, and settles its reply route:
 * the step every record goes through first. A function of the record and the settings alone.
 */
final class Triage {

    static final String NO_LOG_APPEND_TIME = "the record carries no log-append time; the command topic must "
            + "use message.timestamp.type=LogAppendTime (a producer's timestamp is never trusted)";

    /** A marker's reason is the worker's; one a producer wrote is cut to this many characters. */
    static final int MAX_REASON = 500;

    private final CommandDecoder decoder;
    private final ReplyRouter router;

    Triage(EngineSettings settings) {
        this.decoder = new CommandDecoder(settings.limits());
        this.router = new ReplyRouter(settings.defaultReplyTopic(), settings.replyAllowList());
    }

    Triaged triage(Inbound record) {
        if (record.logAppendTime().isEmpty()) {
            return new Triaged.DeadLetter(NO_LOG_APPEND_TIME, Outbound.Cause.NO_LOG_APPEND_TIME);
        }
        if (record.headers().has(Tick.HEADER)) {
            return tick(record);
        }
        if (record.headers().has(HandOver.HEADER)) {
            return handOver(record);
        }
        for (String header : Growth.HEADERS) {
            if (record.headers().has(header)) {
                return growth(record, header);
            }
        }
        if (!record.headers().has(DeadLetterHeaders.UNDELIVERABLE)) {
            return command(record);
        }
        return marker(record, record.headers().lastValue(DeadLetterHeaders.UNDELIVERABLE).orElse(new byte[0]));
    }

    /**
     * A tick moves time on by what it measured, never faster than the broker's clock nor, after
     * other records, by more than the slack (see {@link PartitionTime}): one a producer wrote in
     * the tick's shape moves it no faster than the broker's clock. Any other record with the tick
     * header is dead-lettered, never read as a command.
     */
    private static Triaged tick(Inbound record) {
        Tick.Read read = Tick.read(record.key(), record.value(), record.headers().lastValue(Tick.HEADER).orElse(null),
                record.headers().count(Tick.HEADER));
        if (read instanceof Tick.Read.Malformed malformed) {
            return new Triaged.DeadLetter(malformed.reason(), Outbound.Cause.UNREADABLE);
        }
        if (record.headers().has(DeadLetterHeaders.UNDELIVERABLE)) {
            return new Triaged.DeadLetter("a tick (" + Tick.HEADER + " header) marks no record: it carries no "
                    + DeadLetterHeaders.UNDELIVERABLE + " header", Outbound.Cause.UNREADABLE);
        }
        return new Triaged.Tick(((Tick.Read.Valid) read).measured());
    }

    /**
     * A hand-over grants only what the rules grant at any record of its resource, so one a producer
     * wrote in its shape does no harm; any other record with the header is dead-lettered.
     */
    private Triaged handOver(Inbound record) {
        HandOver.Read read = HandOver.read(record.key(), record.value(),
                record.headers().lastValue(HandOver.HEADER).orElse(null), record.headers().count(HandOver.HEADER));
        if (read instanceof HandOver.Read.Malformed malformed) {
            return new Triaged.DeadLetter(malformed.reason(), Outbound.Cause.UNREADABLE);
        }
        if (record.headers().has(DeadLetterHeaders.UNDELIVERABLE)) {
            return new Triaged.DeadLetter("a hand-over (" + HandOver.HEADER + " header) marks no record: it carries no "
                    + DeadLetterHeaders.UNDELIVERABLE + " header", Outbound.Cause.UNREADABLE);
        }
        HandOver.Read.Resource resource = (HandOver.Read.Resource) read;
        return new Triaged.HandOver(resource.name(), resource.last());
    }

    /**
     * A growth's record, read; what it does depends on the partition's layout, so the machine
     * decides it. Marked undeliverable, or carrying two growth headers, it is dead-lettered.
     */
    private static Triaged growth(Inbound record, String header) {
        int count = Growth.HEADERS.stream().mapToInt(record.headers()::count).sum();
        Growth.Read read = Growth.read(header, record.key(), record.value(), record.headers().lastValue(header)
                .orElse(null), count);
        if (record.headers().has(DeadLetterHeaders.UNDELIVERABLE)) {
            return new Triaged.DeadLetter("a growth record (" + header + " header) marks no record: it carries no "
                    + DeadLetterHeaders.UNDELIVERABLE + " header", Outbound.Cause.UNREADABLE);
        }
        if (read instanceof Growth.Read.Seal seal) {
            return new Triaged.Seal(seal.from(), seal.partitions());
        } else if (read instanceof Growth.Read.Carry carry) {
            return new Triaged.Carry(carry.from(), carry.seal(), carry.partitions(), carry.resource(), carry.json());
        } else if (read instanceof Growth.Read.Taken taken) {
            return new Triaged.Taken(taken.from(), taken.seal(), taken.partitions(), taken.tokenBound());
        }
        return new Triaged.DeadLetter(((Growth.Read.Malformed) read).reason(), Outbound.Cause.UNREADABLE);
    }

    /**
     * A marker is answered from the record it marks, whoever wrote it: one a producer forged can
     * only send a reply its command already got to the dead letters, never change a decision.
     */
    private Triaged marker(Inbound record, byte[] undeliverable) {
        Optional<byte[]> of = record.headers().lastValue(DeadLetterHeaders.REPLY_OF);
        OptionalLong marked = of.isEmpty() ? OptionalLong.empty() : earlierOffset(record, of.get());
        if (marked.isEmpty()) {
            return new Triaged.DeadLetter(DeadLetterHeaders.UNDELIVERABLE + " without a " + DeadLetterHeaders.REPLY_OF
                    + " naming an earlier record of " + record.topic() + "-" + record.partition(),
                    Outbound.Cause.UNREADABLE);
        }
        if (DeadLetterHeaders.cut(record.headers().toKafka())) {
            // The marked record did not fit its own topic again whole: its reply cannot be made
            // from this copy (an invalid one is rebuilt from the record). A valid command always
            // fits, cut of headers the worker does not read; only an oversized key comes here.
            return new Triaged.DeadLetter("the reply to " + new String(of.get(), StandardCharsets.UTF_8)
                    + " could not be delivered (" + reasonOf(undeliverable) + "), and that record is too large to be "
                    + "written to its partition again whole: its reply is not in the log; the record is at that "
                    + "position", Outbound.Cause.REPLY_UNDELIVERABLE);
        }
        if (record.headers().has(DeadLetterHeaders.REPLY_REQUEST)) {
            return waited(record, marked.getAsLong(), reasonOf(undeliverable));
        }
        Triaged command = command(record);
        if (command instanceof Triaged.Answered answered) {
            return new Triaged.Undelivered(answered, marked.getAsLong(), reasonOf(undeliverable));
        }
        Triaged.DeadLetter dead = (Triaged.DeadLetter) command;
        return new Triaged.DeadLetter("marks a record that got no reply: " + dead.reason(), dead.cause());
    }

    /**
     * The mark of a waiter's reply: its request ID and route are in the mark's headers, its bytes
     * in the request's entry ({@link Answers#undelivered}). The route is checked as a command's is.
     */
    private Triaged waited(Inbound record, long marked, String reason) {
        String requestId = new String(record.headers().lastValue(DeadLetterHeaders.REPLY_REQUEST).orElseThrow(),
                StandardCharsets.UTF_8);
        Routing routing = router.route(record.headers(), new ReplyTo.Default());
        Optional<byte[]> correlationId = record.headers().lastValue(ReplyRouter.CORRELATION_HEADER);
        if (requestId.isEmpty() || requestId.length() > Limits.MAX_REQUEST_ID_CHARS) {
            return new Triaged.DeadLetter(DeadLetterHeaders.REPLY_REQUEST + " must name a request ID of 1 to "
                    + Limits.MAX_REQUEST_ID_CHARS + " characters", Outbound.Cause.UNREADABLE);
        }
        if (routing instanceof Routing.Refused refused) {
            return new Triaged.DeadLetter(refused.reason(), Outbound.Cause.ROUTE_REFUSED);
        }
        if (correlationId.isPresent() && correlationId.get().length > Limits.MAX_CORRELATION_ID_BYTES) {
            return new Triaged.DeadLetter(ReplyRouter.CORRELATION_HEADER + " must be at most "
                    + Limits.MAX_CORRELATION_ID_BYTES + " bytes", Outbound.Cause.UNREADABLE);
        }
        return new Triaged.Undelivered(new Triaged.Waited(((Routing.Routed) routing).route(), correlationId, requestId),
                marked, reason);
    }

    /** A marker's reason: the worker's, or a producer's cut to {@link #MAX_REASON} characters. */
    private static String reasonOf(byte[] undeliverable) {
        String reason = new String(undeliverable, StandardCharsets.UTF_8);
        return reason.length() > MAX_REASON ? reason.substring(0, MAX_REASON) : reason;
    }

    /** The offset in {@code topic-partition@offset}, when it names an earlier record of the same partition. */
    private static OptionalLong earlierOffset(Inbound record, byte[] position) {
        String text = position == null ? "" : new String(position, StandardCharsets.UTF_8);
        String prefix = record.topic() + "-" + record.partition() + "@";
        if (!text.startsWith(prefix)) {
            return OptionalLong.empty();
        }
        try {
            long offset = Long.parseLong(text.substring(prefix.length()));
            return offset >= 0 && offset < record.offset() ? OptionalLong.of(offset) : OptionalLong.empty();
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    private Triaged command(Inbound record) {
        ParsedCommand parsed = decoder.decode(record.key(), record.value());
        if (parsed instanceof ParsedCommand.Unreadable unreadable) {
            return new Triaged.DeadLetter(unreadable.reason(), Outbound.Cause.UNREADABLE);
        }
        Routing routing = router.route(record.headers(), ((ParsedCommand.Answerable) parsed).replyTo());
        if (routing instanceof Routing.Refused refused) {
            return new Triaged.DeadLetter(refused.reason(), Outbound.Cause.ROUTE_REFUSED);
        }
        ReplyRoute route = ((Routing.Routed) routing).route();
        Optional<byte[]> correlationId = record.headers().lastValue(ReplyRouter.CORRELATION_HEADER);
        if (correlationId.isPresent() && correlationId.get().length > Limits.MAX_CORRELATION_ID_BYTES) {
            // Copied onto the reply it would make the reply as large as the producer wished.
            return new Triaged.Reject(route, Optional.empty(), Reply.Rejected.of(withError(
                    (ParsedCommand.Answerable) parsed, new FieldError(ReplyRouter.CORRELATION_HEADER,
                            "must be at most " + Limits.MAX_CORRELATION_ID_BYTES + " bytes (it is copied onto the "
                                    + "reply); it has " + correlationId.get().length))));
        }
        if (parsed instanceof ParsedCommand.Valid valid) {
            return new Triaged.Apply(route, correlationId, valid.command());
        }
        return new Triaged.Reject(route, correlationId, Reply.Rejected.of((ParsedCommand.Invalid) parsed));
    }

    /** The command as invalid, with {@code error} added to what else is wrong with it. */
    private static ParsedCommand.Invalid withError(ParsedCommand.Answerable parsed, FieldError error) {
        if (parsed instanceof ParsedCommand.Valid valid) {
            return new ParsedCommand.Invalid(valid.requestId(), valid.replyTo(), Optional.of(valid.command().type()),
                    Optional.of(valid.command().resource()), List.of(error));
        }
        ParsedCommand.Invalid invalid = (ParsedCommand.Invalid) parsed;
        List<FieldError> errors = new ArrayList<>(invalid.errors());
        errors.add(error);
        return new ParsedCommand.Invalid(invalid.requestId(), invalid.replyTo(), invalid.type(), invalid.resource(),
                errors);
    }
}
