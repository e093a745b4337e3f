package dev.lockstep.engine;

import dev.lockstep.core.Command;
import dev.lockstep.core.Verdict;
import dev.lockstep.protocol.Reply;
import dev.lockstep.protocol.ReplyEncoder;
import java.time.Duration;
import java.util.Optional;

/**
 * The triage alone, for a benchmark's baseline (lockstep-bench's echo mode, the replay's
 * throughput baseline): what a record would be answered if the lock rules were not run, an
 * acquire {@code not_acquired}, every other valid command {@code not_found} (answers a client
 * takes for its command's), a tick nothing. The product never runs it.
 */
public final class Echo {

    private final Triage triage;

    public Echo(EngineSettings settings) {
        this.triage = new Triage(settings);
    }

    public Optional<Outbound> answer(Inbound record) {
        Triaged triaged = triage.triage(record);
        if (triaged instanceof Triaged.Tick || triaged instanceof Triaged.HandOver || triaged instanceof Triaged.Seal
                || triaged instanceof Triaged.Carry || triaged instanceof Triaged.Taken) {
            return Optional.empty();
        } else if (triaged instanceof Triaged.Apply apply) {
            Verdict verdict = apply.command() instanceof Command.Acquire ? new Verdict.NotAcquired(Duration.ZERO)
                    : new Verdict.NotFound();
            return Optional.of(apply.reply(record, ReplyEncoder.encode(new Reply.Decided(apply.command(), verdict)),
                    new Outbound.Answer.Decided(Optional.of(apply.command().type()), verdict.outcome())));
        } else if (triaged instanceof Triaged.Reject reject) {
            return Optional.of(reject.reply(record));
        } else if (triaged instanceof Triaged.Undelivered marker) {
            return Optional.of(new Outbound.DeadLetter(record, marker.reason(), Outbound.Cause.REPLY_UNDELIVERABLE));
        }
        return Optional.of(((Triaged.DeadLetter) triaged).of(record));
    }
}
