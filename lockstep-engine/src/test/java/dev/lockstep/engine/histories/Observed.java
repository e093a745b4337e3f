package dev.lockstep.engine.histories;

import dev.lockstep.core.Command;
import dev.lockstep.core.Arbiter;
import dev.lockstep.core.Lease;
import dev.lockstep.core.Now;
import dev.lockstep.core.Verdict;
import dev.lockstep.core.WaitEnd;
import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.engine.Step;
import dev.lockstep.protocol.EventCodec;
import dev.lockstep.protocol.Fingerprint;
import dev.lockstep.protocol.LeaseEvent;
import dev.lockstep.protocol.ReplyDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Checks each record's published output (its events, the waiters' replies it made, its own answer)
 * against what the replies and events before it say, and the lock rules: the invariants of a
 * generated history, after every record.
 */
final class Observed {

    static final String EXCLUSION = "exclusion in log time";
    static final String TOKENS = "tokens grow and name one lease each";
    static final String ONE_REPLY = "one final reply per request, the same bytes to every retry";
    static final String FIFO = "waiters are granted in the order they queued, before any newcomer";
    static final String STRANDED = "no stranded waiter";
    static final String VALIDATION = "validation independent of the queue";
    static final String EVENTS = "events consistent with the holders";
    static final String CANCELLATION = "a cancellation releases only the lease its own acquire granted";
    static final String QUARANTINE = "nothing granted during a quarantine";
    static final String RULES = "answers follow the lock rules";
    static final String LASTS = "a lease lasts its TTL of log time, and a waiter waited no less than it is told";

    /** A request as its replies left it: its command, and once decided, the bytes it was answered with. */
    private record Request(Command command, Optional<byte[]> reply, Optional<Long> granted) {
    }

    private final Holdings holdings = new Holdings();
    private final Map<String, Request> requests = new HashMap<>();
    private final Duration maxTtl;
    private Instant clock = Instant.EPOCH;
    private boolean lost;
    private Optional<Instant> quarantinedUntil = Optional.empty();
    /** Each live lease (resource/token): the log time before which it may not end, from its latest start. */
    private final Map<String, Instant> mustLast = new HashMap<>();
    /** Each waiting acquire: the log-append time of its record. */
    private final Map<String, Instant> queuedAt = new HashMap<>();

    Observed(Duration maxTtl) {
        this.maxTtl = maxTtl;
    }

    Holdings holdings() {
        return holdings;
    }

    /** Records were lost before they were applied: the partition is quarantined from its next record on. */
    void recordsLost() {
        lost = true;
    }

    /**
     * One record and what it published; {@code command} is the producer's (none for a tick or a
     * hand-over); {@code pending} the resources a hand-over is on its way to or due for.
     */
    void check(Inbound record, Optional<Command> command, Step step, Set<String> pending, Now time) {
        Instant now = time.passed();
        clock = now;
        if (lost) {
            quarantinedUntil = Optional.of(time.from().plus(maxTtl));
            lost = false;
        }
        boolean quarantined = quarantinedUntil.filter(now::isBefore).isPresent();
        Expected expected = new Expected(record, step);
        for (Lease ended : holdings.endingBy(now)) {
            expected.ended(LeaseEvent.Kind.EXPIRED, ended);
            holdings.end(ended);
        }
        for (Holdings.Waiting ended : holdings.waitsEndingBy(now)) {
            expected.waiter(LeaseEvent.Kind.WAIT_EXPIRED, ended);
            holdings.leave(ended);
            reply(expected.deferred(ended.requestId(), WaitEnd.WAIT_EXPIRED), ended);
        }
        command.ifPresent(c -> new Decision(this, expected, record.offset(), time, quarantined).decide(c));
        for (Outbound.ReplyRecord grant : expected.grants()) {
            handedOver(grant, expected, time, quarantined);
        }
        expected.vacancies(resource -> holdings.live(resource, now).leases().isEmpty());
        expected.verify();
        holdings.checkExclusion(now);
        stranded(time, quarantined, pending);
        lasted(record, step, time);
    }

    /**
     * Log time here is real time (the driver's ticker measures by it): whatever the partition's
     * time did, a lease ends no sooner than its TTL after the record that last started it, and a
     * waiter is never told it waited longer than the log time between its acquire and its grant.
     */
    private void lasted(Inbound record, Step step, Now time) {
        Instant log = record.logAppendTime().orElse(Instant.MIN);
        for (LeaseEvent event : step.events().stream().map(e -> EventCodec.decode(e.value())).toList()) {
            String key = event.resource() + "/" + event.fencingToken();
            switch (event.kind()) {
                case GRANTED, TAKEN_OVER, EXTENDED -> mustLast.put(key,
                        log.plus(Duration.between(time.from(), event.expiresAt().orElseThrow())));
                case EXPIRED -> Violation.check(!log.isBefore(mustLast.getOrDefault(key, Instant.MIN)), LASTS,
                        key + " expired at log time " + log + ", before " + mustLast.get(key));
                case QUEUED -> queuedAt.put(event.requestId().orElseThrow(), log);
                default -> { }
            }
        }
        for (Outbound.ReplyRecord reply : step.deferred()) {
            if (verdict(reply) instanceof Verdict.Acquired acquired && acquired.waited().isPresent()) {
                Instant queued = queuedAt.getOrDefault(reply.requestId(), Instant.MIN);
                Violation.check(!queued.plus(acquired.waited().get()).isAfter(log), LASTS, reply.requestId()
                        + " told it waited " + acquired.waited().get() + ", but it queued at " + queued
                        + " and was granted at " + log);
            }
        }
    }

    /**
     * The first waiter of each resource, granted by the rules now or held by its owner by now (its
     * turn: an extension), must have a hand-over on its way.
     */
    private void stranded(Now time, boolean quarantined, Set<String> pending) {
        Instant now = time.passed();
        if (quarantined) {
            return;
        }
        for (String resource : holdings.queuedResources()) {
            Holdings.Waiting first = holdings.queue(resource).get(0);
            boolean decidable = holdings.grantable(first, time).isPresent()
                    || holdings.heldBy(resource, first.owner(), now).isPresent();
            Violation.check(!decidable || pending.contains(resource), STRANDED,
                    first.requestId() + " of " + first.owner() + " waits first for " + resource + " at " + now
                            + ", which the rules grant it or its owner holds (holders "
                            + holdings.live(resource, now).leases() + "), and no hand-over is on its way");
        }
    }

    /** A waiter granted by this record: the first in its queue, granted what the rules grant it. */
    private void handedOver(Outbound.ReplyRecord reply, Expected expected, Now time, boolean quarantined) {
        Instant now = time.passed();
        Optional<Holdings.Waiting> waiting = holdings.waiting(reply.requestId());
        Violation.check(waiting.isPresent(), ONE_REPLY, "a grant to " + reply.requestId() + ", which does not wait");
        Holdings.Waiting granted = waiting.get();
        String resource = granted.acquire().resource();
        Violation.check(!quarantined, QUARANTINE, granted.requestId() + " granted " + resource + " at " + now
                + ", before the quarantine ends at " + quarantinedUntil.map(Instant::toString).orElse("?"));
        Violation.check(holdings.queue(resource).get(0).equals(granted), FIFO, granted.requestId() + " granted "
                + resource + " before " + holdings.queue(resource).get(0).requestId() + ", which queued first");
        Optional<Lease> held = holdings.heldBy(resource, granted.owner(), now);
        if (held.isPresent()) {
            holderTurn(reply, granted, held.get(), expected, time);
            return;
        }
        Violation.check(verdict(reply) instanceof Verdict.Acquired, RULES, granted.requestId() + " answered "
                + Expected.text(reply) + " at its turn, where the rules grant it a lease or nothing yet");
        Lease lease = ((Verdict.Acquired) verdict(reply)).lease();
        Optional<Lease> rules = holdings.grantable(granted, time);
        Violation.check(rules.isPresent(), RULES, granted.requestId() + " granted " + lease + " at " + now
                + " though the rules grant it nothing beside " + holdings.live(resource, now).leases());
        Violation.check(sameButToken(rules.get(), lease), RULES, granted.requestId() + " granted " + lease
                + " where the rules grant " + rules.get());
        holdings.leave(granted);
        holdings.grant(lease, now);
        expected.granted(lease);
        reply(Optional.of(reply), granted);
        requests.put(granted.requestId(), new Request(granted.acquire(), Optional.of(reply.value()),
                Optional.of(lease.fencingToken())));
    }

    /**
     * The turn of a waiter whose owner holds the resource (its other acquire was granted first): it
     * is answered as that owner's acquire is, its lease extended to now + its TTL with the same
     * token, or {@code invalid} for another share; it grants nothing.
     */
    private void holderTurn(Outbound.ReplyRecord reply, Holdings.Waiting waiter, Lease held, Expected expected,
            Now now) {
        Verdict rules = Arbiter.decide(waiter.asGranted(), holdings.live(held.resource(), now.passed()), now,
                Long.MAX_VALUE)
                .verdict();
        Verdict answered = verdict(reply);
        if (rules instanceof Verdict.Acquired extended) {
            Violation.check(answered instanceof Verdict.Acquired a && a.lease().fencingToken() == held.fencingToken()
                    && a.lease().expiresAt().equals(extended.lease().expiresAt())
                    && a.lease().permit() == held.permit(), RULES, waiter.requestId() + " of " + waiter.owner()
                    + ", which holds " + held + ", answered " + Expected.text(reply) + " where the rules extend it to "
                    + extended.lease());
            Lease lease = ((Verdict.Acquired) answered).lease();
            holdings.put(lease);
            expected.extended(lease);
        } else {
            Violation.check(answered.getClass().equals(rules.getClass()), RULES, waiter.requestId()
                    + " answered " + Expected.text(reply) + " where the rules say " + rules);
        }
        holdings.leave(waiter);
        reply(Optional.of(reply), waiter);
    }

    /** The one reply of a waiter that left its queue: it must have been published by this record. */
    private void reply(Optional<Outbound.ReplyRecord> reply, Holdings.Waiting waiter) {
        Violation.check(reply.isPresent(), ONE_REPLY, waiter.requestId() + " left its queue unanswered");
        requests.put(waiter.requestId(), new Request(waiter.acquire(), Optional.of(reply.get().value()),
                Optional.empty()));
    }

    /** The earlier request under this ID, if any. */
    Optional<Request> request(String requestId) {
        return Optional.ofNullable(requests.get(requestId));
    }

    void decided(Command command, byte[] reply, Optional<Long> granted) {
        requests.put(command.requestId(), new Request(command, Optional.of(reply), granted));
    }

    void queued(Command.Acquire acquire) {
        requests.put(acquire.requestId(), new Request(acquire, Optional.empty(), Optional.empty()));
    }

    /** The token of the new lease the request was granted, if it was granted one. */
    Optional<Long> grantedBy(String requestId) {
        return request(requestId).flatMap(Request::granted);
    }

    /** Whether {@code command} is the request's own command again (a retry), and its stored reply if decided. */
    Optional<Optional<byte[]>> retried(Command command) {
        return request(command.requestId()).map(prior -> Fingerprint.of(prior.command()).equals(Fingerprint.of(command))
                ? prior.reply() : Optional.of(new byte[0]));
    }

    Optional<Instant> quarantinedUntil() {
        return quarantinedUntil;
    }

    static Verdict verdict(Outbound.ReplyRecord reply) {
        return ReplyDecoder.decode(reply.value()).orElseThrow().reply();
    }

    static boolean sameButToken(Lease expected, Lease actual) {
        return expected.resource().equals(actual.resource()) && expected.owner().equals(actual.owner())
                && expected.acquiredAt().equals(actual.acquiredAt()) && expected.expiresAt().equals(actual.expiresAt())
                && expected.permit() == actual.permit() && expected.share().equals(actual.share())
                && expected.value().equals(actual.value());
    }

    /** The events a record must publish, built up as its replies are checked, against those it did. */
    static final class Expected {

        private final Inbound record;
        private final List<String> events = new ArrayList<>();
        private final Set<String> vacant = new LinkedHashSet<>();
        private final Set<String> announcedEnded = new LinkedHashSet<>();
        private final List<Outbound.ReplyRecord> deferred;
        private final List<LeaseEvent> published;
        final Optional<Outbound> answer;

        Expected(Inbound record, Step step) {
            this.record = record;
            this.deferred = new ArrayList<>(step.deferred());
            this.published = step.events().stream().map(e -> EventCodec.decode(e.value())).toList();
            this.answer = step.answer();
        }

        void ended(LeaseEvent.Kind kind, Lease lease) {
            events.add(kind + " " + lease.resource() + " " + lease.owner() + " " + lease.fencingToken());
            if (lease.value().isPresent()) {
                announcedEnded.add(lease.resource());
            }
        }

        void waiter(LeaseEvent.Kind kind, Holdings.Waiting waiter) {
            events.add(kind + " " + waiter.acquire().resource() + " " + waiter.owner() + " 0");
        }

        void granted(Lease lease) {
            events.add("GRANTED " + lease.resource() + " " + lease.owner() + " " + lease.fencingToken());
        }

        void extended(Lease lease) {
            events.add("EXTENDED " + lease.resource() + " " + lease.owner() + " " + lease.fencingToken());
        }

        /** The waiter's reply this record made for the wait's end, taken out of those still to check. */
        Optional<Outbound.ReplyRecord> deferred(String requestId, WaitEnd reason) {
            for (Outbound.ReplyRecord reply : deferred) {
                if (reply.requestId().equals(requestId) && verdict(reply) instanceof Verdict.NotAcquired no
                        && no.reason().equals(Optional.of(reason))) {
                    deferred.remove(reply);
                    return Optional.of(reply);
                }
            }
            return Optional.empty();
        }

        /**
         * The waiters' replies left, each to be checked as the turn of a waiter: a grant, or (for a
         * waiter whose owner holds by then) an extension or {@code invalid}.
         */
        List<Outbound.ReplyRecord> grants() {
            List<Outbound.ReplyRecord> grants = List.copyOf(deferred);
            grants.forEach(reply -> Violation.check(verdict(reply) instanceof Verdict.Acquired
                    || verdict(reply) instanceof Verdict.Invalid, ONE_REPLY,
                    "a reply to " + reply.requestId() + " no wait's end or cancellation explains: " + text(reply)));
            return grants;
        }

        void vacancies(Predicate<String> nobodyHolds) {
            announcedEnded.stream().filter(nobodyHolds).forEach(vacant::add);
        }

        void verify() {
            List<String> actual = new ArrayList<>();
            Set<String> actualVacant = new LinkedHashSet<>();
            for (LeaseEvent event : published) {
                if (event.kind() == LeaseEvent.Kind.VACANT) {
                    actualVacant.add(event.resource());
                } else {
                    LeaseEvent.Kind kind = event.kind() == LeaseEvent.Kind.TAKEN_OVER ? LeaseEvent.Kind.GRANTED
                            : event.kind();
                    actual.add(kind + " " + event.resource() + " " + event.owner() + " " + event.fencingToken());
                }
            }
            Violation.check(actual.equals(events), EVENTS, record.position() + " published " + actual
                    + " where its replies and the holders say " + events);
            Violation.check(actualVacant.equals(vacant), EVENTS, record.position() + " says vacant " + actualVacant
                    + " where the holders after it say " + vacant);
        }

        static String text(Outbound.ReplyRecord reply) {
            return new String(reply.value(), StandardCharsets.UTF_8);
        }
    }
}
