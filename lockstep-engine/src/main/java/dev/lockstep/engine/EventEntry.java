package dev.lockstep.engine;

import dev.lockstep.protocol.LeaseEvent;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A lease event as published, kept until its publication was acknowledged: a record applied
 * before and fetched again (after a failed acknowledgement or a takeover) publishes its events
 * again from these, byte for byte, as its reply comes from its {@link RequestEntry}.
 *
 * @param offset the command record that made or showed the change
 * @param index its place among that record's events
 * @param eventId the {@code event_id} inside {@code value}
 * @param kind the {@code event} inside {@code value}
 * @param value the event's JSON ({@link dev.lockstep.protocol.EventCodec})
 * @param waited the {@code waited_ms} inside {@code value}: a grant to an acquire that waited
 */
public record EventEntry(long offset, int index, String eventId, LeaseEvent.Kind kind, String resource, String value,
        Optional<Duration> waited) {

    public EventEntry(long offset, int index, String eventId, LeaseEvent.Kind kind, String resource, String value) {
        this(offset, index, eventId, kind, resource, value, Optional.empty());
    }

    public EventEntry {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(waited, "waited");
    }
}
