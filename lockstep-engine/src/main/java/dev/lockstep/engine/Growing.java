package dev.lockstep.engine;

import dev.lockstep.core.Lease;
import dev.lockstep.protocol.Growth;
import dev.lockstep.protocol.ResourcePartition;
import dev.lockstep.core.Now;
import java.time.Duration;
import java.time.Instant;
import dev.lockstep.protocol.ReplyDecoder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Map;
import java.util.TreeMap;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * A growth's records as one partition applies them (docs/architecture.md, "Growing the command
 * topic"): a seal re-routes it and carries off the state of every resource that leaves it; a carry
 * brings one part of an arriving resource's state; a taken makes this partition decide the
 * resources of the partition that carried them, with tokens above every token that one issued.
 * Pure, as the rest of the machine.
 */
final class Growing {

    private final Inbound record;
    private final PartitionState state;
    private final Layout layout;
    private final Now now;
    private final Optional<Quarantine> quarantine;
    private final EngineSettings settings;

    /**
     * @param now the partition's time at the record: a lease ended by then showed its end here
     *     already; a carried one is re-dated from it
     * @param quarantine the partition's quarantine at the record, if any
     */
    Growing(Inbound record, PartitionState state, Layout layout, Now now, Optional<Quarantine> quarantine,
            EngineSettings settings) {
        this.settings = settings;
        this.record = record;
        this.state = state;
        this.layout = layout;
        this.now = now;
        this.quarantine = quarantine;
    }

    /** What a growth record did: the records to append elsewhere, or why it was dead-lettered. */
    sealed interface Result {

        /** Applied (or a repeat that changes nothing); these to append. */
        record Applied(List<Outbound.Transfer> transfers) implements Result {
        }

        /** Not applied, for this reason. */
        record Refused(String reason) implements Result {
        }
    }

    private static final Result NOTHING = new Result.Applied(List.of());

    /**
     * How far back the request IDs of a leaving resource are carried: a retry later than this
     * after the seal is decided again at the new partition. The shortest request retention, which
     * every client's retries and every batch the worker applies again stay within.
     */
    static final Duration CARRIED_REQUESTS = EngineSettings.MIN_REQUEST_RETENTION;
    /** Request IDs per carry record: a record of them stays far below a topic's limit. */
    static final int REQUESTS_PER_CARRY = 100;

    /**
     * From here on resources are routed by {@code seal.partitions()}. Each resource this partition
     * held that now belongs elsewhere leaves: its live leases and its waiters are carried there, in order,
     * and each partition it hands resources to is told when all were carried (with the bound of
     * this partition's tokens: the seal's own token, above every token granted before it).
     */
    Result seal(Triaged.Seal seal) {
        int self = record.partition();
        if (seal.partitions() <= layout.partitions()) {
            return NOTHING;
        }
        if (self >= seal.partitions()) {
            return new Result.Refused("a seal to " + seal.partitions() + " partitions on partition " + self
                    + ", which is not one of them");
        }
        if (layout.growing()) {
            return new Result.Refused("partition " + self + " still awaits the resources of partitions "
                    + layout.growth().orElseThrow().awaiting() + " from the growth to " + layout.partitions());
        }
        if (self < layout.partitions() && seal.from() != layout.partitions()) {
            return new Result.Refused("a seal from " + seal.from() + " partitions on partition " + self
                    + ", which routes by " + layout.partitions());
        }
        if (quarantine.isPresent()) {
            // Its leaving resources may have leases nobody knows of: they leave once it has ended.
            return new Result.Refused("partition " + self + " is quarantined (records lost) until "
                    + quarantine.get().until().map(Instant::toString).orElse("the longest TTL has passed")
                    + ": it is sealed after that (the worker appends the seal again)");
        }
        long bound = state.position().tokenAt(record.offset());
        List<Outbound.Transfer> transfers = new ArrayList<>();
        SortedSet<String> leaving = leaving(seal.partitions());
        Map<String, List<RequestEntry>> requests = carriedRequests(leaving);
        for (String resource : leaving) {
            int to = ResourcePartition.of(resource, seal.partitions());
            List<Lease> leases = state.holders(resource).leases();
            // Those that ended were said to here; the tokens they had are below the bound.
            List<Lease> live = leases.stream().filter(lease -> lease.isLiveAt(now.passed())).toList();
            if (!live.isEmpty()) {
                transfers.add(carry(to, seal.partitions(), resource, new Carried.Leases(live, now.passed())));
            }
            leases.forEach(state::remove);
            for (Waiter waiter : List.copyOf(state.queues().queue(resource))) {
                transfers.add(carry(to, seal.partitions(), resource, new Carried.Queued(waiter, now.passed())));
                state.queues().leave(waiter);
            }
            List<RequestEntry> entries = requests.getOrDefault(resource, List.of());
            for (int from = 0; from < entries.size(); from += REQUESTS_PER_CARRY) {
                transfers.add(carry(to, seal.partitions(), resource, new Carried.Requests(
                        entries.subList(from, Math.min(entries.size(), from + REQUESTS_PER_CARRY)), now.passed())));
            }
        }
        // A partition at or above the old count held nothing: it hands nothing on.
        for (int to : self < seal.from() ? Layout.destinations(seal.from(), seal.partitions(), self)
                : new TreeSet<Integer>()) {
            transfers.add(new Outbound.Transfer(record, to, Optional.empty(), Growth.TAKEN,
                    Growth.takenHeader(self, record.offset(), seal.partitions(), bound), new byte[0]));
        }
        state.position(state.position().withLayout(layout.sealed(self, seal.from(), seal.partitions(),
                record.offset(), state.position().tokenBase())));
        return new Result.Applied(transfers);
    }

    /**
     * One part of an arriving resource's state, while its partition is awaited: leases take their
     * permits, a waiter joins the queue (at this record's place) unless it is there already (a
     * carry sent again). Once that partition's resources were taken, a carry from it is a repeat.
     */
    Result carry(Triaged.Carry carry) {
        int self = record.partition();
        Optional<Layout.Growth> growth = layout.growth();
        if (carry.partitions() < layout.partitions()
                || growth.isPresent() && growth.get().taken().containsKey(carry.from())) {
            // Of an earlier growth, or sent again after its partition's taken.
            return NOTHING;
        }
        if (growth.isEmpty() || carry.partitions() != layout.partitions()
                || !growth.get().awaiting().contains(carry.from())
                || ResourcePartition.of(carry.resource(), layout.partitions()) != self
                || ResourcePartition.of(carry.resource(), growth.get().from()) != carry.from()) {
            return new Result.Refused("a carry of " + carry.resource() + " from partition " + carry.from()
                    + ", which does not hand it to partition " + self + " in a growth under way here");
        }
        Optional<Carried> carried = Carried.read(carry.resource(), carry.json(), record.offset());
        if (carried.isEmpty()) {
            return new Result.Refused("a carry's value is the JSON of a resource's leases or of one waiter");
        }
        // Times are re-dated: what was left of them at the seal, from this partition's time, which may be
        // ahead of the old one's (a lease ends no sooner here than it had left to run there).
        Duration since = Duration.ZERO;
        if (carried.get() instanceof Carried.Leases leases) {
            for (Lease lease : leases.leases()) {
                Lease here = new Lease(lease.resource(), lease.owner(), lease.fencingToken(), lease.acquiredAt(),
                        now.from().plus(Duration.between(leases.at(), lease.expiresAt())), lease.permit(),
                        lease.share(), lease.value());
                // Carried again before the taken, a lease it has already (live or ended) is not put back.
                if (state.holders(here.resource()).atPermit(here.permit())
                        .filter(held -> held.fencingToken() == here.fencingToken()).isEmpty()) {
                    state.put(here);
                }
            }
        } else if (carried.get() instanceof Carried.Requests requests) {
            for (RequestEntry entry : requests.entries()) {
                if (state.request(entry.requestId()).isEmpty()) {
                    // Remembered as long from here as it had left there; answered from this record.
                    state.put(new RequestEntry(entry.requestId(), entry.fingerprint(), entry.reply(), record.offset(),
                            now.passed().minus(Duration.between(entry.appliedAt(), requests.at()))));
                }
            }
        } else {
            Carried.Queued queued = (Carried.Queued) carried.get();
            Waiter waiter = queued.waiter();
            // Carried again: one that waits here, or was answered here already, is not queued again.
            if (state.queues().waiting(waiter.requestId()).isEmpty() && state.request(waiter.requestId()).isEmpty()) {
                state.queues().join(new Waiter(waiter.resource(), waiter.requestId(), waiter.owner(), waiter.ttl(),
                        waiter.offset(), now.passed().minus(Duration.between(waiter.queuedAt(), queued.at())),
                        now.from().plus(Duration.between(queued.at(), waiter.deadline())), waiter.route(),
                        waiter.correlationId(), waiter.fingerprint(), waiter.share(), waiter.value()));
            }
        }
        return NOTHING;
    }

    /**
     * Partition {@code taken.from()} carried all it hands here: its resources are decided here from
     * this record on, with tokens above its bound, and each that has waiters is named, so its
     * first waiter is granted at this record when the rules let it.
     */
    Result taken(Triaged.Taken taken, Queueing queueing) {
        Optional<Layout.Growth> growth = layout.growth();
        if (taken.partitions() < layout.partitions()
                || growth.isPresent() && growth.get().taken().containsKey(taken.from())) {
            return NOTHING;
        }
        if (growth.isEmpty() || taken.partitions() != layout.partitions()
                || !growth.get().awaiting().contains(taken.from())) {
            return new Result.Refused("a taken from partition " + taken.from() + ", which hands partition "
                    + record.partition() + " nothing in a growth under way here");
        }
        int from = growth.get().from();
        state.queues().resources().stream()
                .filter(resource -> ResourcePartition.of(resource, from) == taken.from())
                .forEach(queueing::named);
        PartitionPosition above = state.position().withTokensAbove(taken.tokenBound(), record.offset());
        state.position(above.withLayout(layout.taken(taken.from(), record.offset(), above.tokenBase())));
        return NOTHING;
    }

    /**
     * The request IDs applied lately ({@link #CARRIED_REQUESTS} of the partition's time, and
     * remembered) to each leaving resource, in the order they were applied: a retry of one, sent on
     * after the seal, is answered at the new partition as it was here.
     */
    private Map<String, List<RequestEntry>> carriedRequests(SortedSet<String> leaving) {
        Instant since = now.passed().minus(CARRIED_REQUESTS);
        Map<String, List<RequestEntry>> carried = new TreeMap<>();
        state.requests().stream()
                .filter(entry -> !entry.appliedAt().isBefore(since) && entry.rememberedAt(now.passed(), settings))
                .sorted(Comparator.comparing(RequestEntry::appliedAt).thenComparing(RequestEntry::requestId))
                .forEach(entry -> ReplyDecoder.decode(entry.reply().bytes()).flatMap(ReplyDecoder.ReplyMessage::resource)
                        .filter(leaving::contains)
                        .ifPresent(resource -> carried.computeIfAbsent(resource, r -> new ArrayList<>()).add(entry)));
        return carried;
    }

    /**
     * The resources decided here until now that {@code partitions} routes elsewhere, in order of
     * name (the same for a worker and a replay). Not a lease the worker read of a resource decided
     * elsewhere (for a command here that is sent on): that one is its own partition's to carry.
     */
    private SortedSet<String> leaving(int partitions) {
        SortedSet<String> leaving = new TreeSet<>();
        int self = record.partition();
        state.leases().forEach(lease -> {
            if (ResourcePartition.of(lease.resource(), partitions) != self && layout.decides(lease.resource(), self)) {
                leaving.add(lease.resource());
            }
        });
        state.queues().all().forEach(waiter -> {
            if (ResourcePartition.of(waiter.resource(), partitions) != self && layout.decides(waiter.resource(), self)) {
                leaving.add(waiter.resource());
            }
        });
        return leaving;
    }

    private Outbound.Transfer carry(int to, int partitions, String resource, Carried carried) {
        return new Outbound.Transfer(record, to, Optional.of(resource), Growth.CARRY,
                Growth.carryHeader(record.partition(), record.offset(), partitions), Carried.json(carried));
    }
}
