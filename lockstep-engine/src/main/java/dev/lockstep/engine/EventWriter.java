package dev.lockstep.engine;

import dev.lockstep.core.Lease;
import dev.lockstep.core.Share;
import dev.lockstep.protocol.EventCodec;
import dev.lockstep.protocol.LeaseEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Makes the events of one record. Their IDs are {@code topic-partition/sequence.index}, where the
 * sequence is the record's place across the topic's incarnations (the number a lease it grants
 * gets as token): the same record always yields the same IDs, and no two records share one.
 */
final class EventWriter {

    private final Inbound record;
    private final long sequence;
    private final Optional<String> requestId;
    private final PartitionState state;
    // Most records make no event: nothing is built for them.
    private List<Outbound.Event> written = List.of();

    EventWriter(Inbound record, Optional<String> requestId, PartitionState state) {
        this.record = record;
        this.sequence = state.position().tokenAt(record.offset());
        this.requestId = requestId;
        this.state = state;
    }

    void write(LeaseEvent.Kind kind, Lease lease, Instant at, Optional<Instant> expiresAt) {
        write(kind, lease, at, expiresAt, Optional.empty());
    }

    /** @param cancels the acquire a cancellation's release ends the grant of */
    void write(LeaseEvent.Kind kind, Lease lease, Instant at, Optional<Instant> expiresAt, Optional<String> cancels) {
        write(kind, lease.resource(), lease.owner(), lease.fencingToken(), at, expiresAt, requestId, cancels,
                Optional.empty(), lease.permit(), lease.share(), kind == LeaseEvent.Kind.EXTENDED || kind.startsHold()
                        ? lease.value() : Optional.empty());
    }

    /** An announced lease ended at this record, and nobody holds its resource after it. */
    void vacant(Lease ended) {
        write(LeaseEvent.Kind.VACANT, ended.resource(), ended.owner(), ended.fencingToken(), ended.expiresAt(),
                Optional.empty(), requestId, Optional.empty(), Optional.empty(), ended.permit(), ended.share(),
                Optional.empty());
    }

    /** A grant to an acquire that waited {@code waited} in the queue: the event names that acquire's request. */
    void granted(LeaseEvent.Kind kind, Lease lease, Instant at, Waiter waiter) {
        write(kind, lease.resource(), lease.owner(), lease.fencingToken(), at, Optional.of(lease.expiresAt()),
                Optional.of(waiter.requestId()), Optional.empty(), Optional.of(Duration.between(waiter.queuedAt(), at)),
                lease.permit(), lease.share(), lease.value());
    }

    /** A waiter's event ({@link LeaseEvent.Kind#isWait()}): it names the waiting acquire's request. */
    void waiting(LeaseEvent.Kind kind, Waiter waiter, Instant at) {
        write(kind, waiter.resource(), waiter.owner(), 0, at, Optional.empty(), Optional.of(waiter.requestId()),
                Optional.empty(), Optional.empty(), 0, waiter.share(), Optional.empty());
    }

    private void write(LeaseEvent.Kind kind, String resource, String owner, long token, Instant at,
            Optional<Instant> expiresAt, Optional<String> requestId, Optional<String> cancels,
            Optional<Duration> waited, int permit, Share share, Optional<String> value) {
        if (written.isEmpty()) {
            written = new ArrayList<>(2);
        }
        int index = written.size();
        String eventId = new EventId(record.topic(), record.partition(), sequence, index).toString();
        LeaseEvent event = new LeaseEvent(eventId, kind, resource, owner, token, at, expiresAt, record.position(),
                requestId, cancels, waited, permit, share, value);
        EventEntry entry = new EventEntry(record.offset(), index, event.eventId(), kind, resource,
                new String(EventCodec.encode(event), StandardCharsets.UTF_8), waited);
        state.add(entry);
        written.add(new Outbound.Event(record, entry));
    }

    List<Outbound.Event> written() {
        return written;
    }
}
