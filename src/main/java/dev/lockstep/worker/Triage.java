package dev.lockstep.worker;

import dev.lockstep.protocol.CommandDecoder;
import dev.lockstep.protocol.ParsedCommand;
import dev.lockstep.protocol.Reply;
import java.util.Optional;
import org.apache.kafka.common.header.Header;

/** Decodes a record and settles its reply route: the step every record goes through first. */
final class Triage {

    private final CommandDecoder decoder;
    private final ReplyRouter router;

    Triage(CommandDecoder decoder, ReplyRouter router) {
        this.decoder = decoder;
        this.router = router;
    }

    Triaged triage(Inbound record) {
        ParsedCommand parsed = decoder.decode(record.key(), record.value());
        if (parsed instanceof ParsedCommand.Unreadable unreadable) {
            return new Triaged.DeadLetter(unreadable.reason());
        }
        Routing routing = router.route(record.headers(), ((ParsedCommand.Answerable) parsed).replyTo());
        if (routing instanceof Routing.Refused refused) {
            return new Triaged.DeadLetter(refused.reason());
        }
        ReplyRoute route = ((Routing.Routed) routing).route();
        Header correlation = record.headers().lastHeader(ReplyRouter.CORRELATION_HEADER);
        Optional<byte[]> correlationId = Optional.ofNullable(correlation).map(Header::value);
        if (parsed instanceof ParsedCommand.Valid valid) {
            return new Triaged.Apply(route, correlationId, valid.command());
        }
        return new Triaged.Reject(route, correlationId, Reply.Rejected.of((ParsedCommand.Invalid) parsed));
    }
}
