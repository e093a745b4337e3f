package dev.lockstep.worker;

import dev.lockstep.core.Verdict;
import dev.lockstep.protocol.Reply;
import dev.lockstep.protocol.ReplyEncoder;
import dev.lockstep.store.PartitionId;
import java.util.ArrayList;
import java.util.List;

/**
 * The benchmark's ceiling: decodes and routes every record exactly as the worker does, but
 * answers without a database, so that what it measures is Kafka request-reply alone.
 */
final class EchoProcessor implements RecordProcessor {

    private final Triage triage;

    EchoProcessor(Triage triage) {
        this.triage = triage;
    }

    @Override
    public List<Outbound> process(PartitionId partition, List<Inbound> records) {
        List<Outbound> out = new ArrayList<>(records.size());
        for (Inbound record : records) {
            Triaged t = triage.triage(record);
            if (t instanceof Triaged.Apply apply) {
                out.add(apply.reply(ReplyEncoder.encode(new Reply.Decided(apply.command(), new Verdict.NotFound()))));
            } else if (t instanceof Triaged.Reject reject) {
                out.add(reject.reply(ReplyEncoder.encode(reject.rejection())));
            } else {
                out.add(new Outbound.DeadLetter(record, ((Triaged.DeadLetter) t).reason()));
            }
        }
        return out;
    }
}
