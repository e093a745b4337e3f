package dev.lockstep.engine;

import dev.lockstep.core.Command;
import dev.lockstep.core.Verdict;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * A partition's wait queues, one per resource that has waiters, each in log order; with what
 * changed since they were loaded. The worker loads the queues a batch touches; a replay keeps them all.
 */
public final class WaitQueues {

    private final Map<String, ArrayDeque<Waiter>> byResource = new HashMap<>();
    private final Map<String, Waiter> byRequestId = new HashMap<>();
    /** Every waiter, the next wait to end first; with those that left, skipped when they come up. */
    private final PriorityQueue<Waiter> deadlines = new PriorityQueue<>(Waiter.BY_DEADLINE);
    private final Map<Long, Waiter> joined = new LinkedHashMap<>();
    private final Set<Long> left = new LinkedHashSet<>();
    /** Waiters due since loading (by offset): the offset of the record after which each was. */
    private final Map<Long, Long> due = new LinkedHashMap<>();
    private boolean writesBack = true;

    WaitQueues(Collection<Waiter> waiters) {
        waiters.stream().sorted(Comparator.comparingLong(Waiter::offset)).forEach(this::add);
    }

    /** The resource's waiters, first in line first. */
    public List<Waiter> queue(String resource) {
        ArrayDeque<Waiter> queue = byResource.get(resource);
        return queue == null ? List.of() : List.copyOf(queue);
    }

    /** The waiter of a request ID still in a queue. */
    public Optional<Waiter> waiting(String requestId) {
        return Optional.ofNullable(byRequestId.get(requestId));
    }

    /** Every waiter held in memory. */
    public Collection<Waiter> all() {
        return Collections.unmodifiableCollection(byRequestId.values());
    }

    /** The waiters that joined since loading and still wait: rows to write. */
    public Collection<Waiter> joined() {
        return Collections.unmodifiableCollection(joined.values());
    }

    /** The offsets of waiters loaded that left since: rows to remove. */
    public Collection<Long> left() {
        return Collections.unmodifiableCollection(left);
    }

    /**
     * The waiters still waiting that became due since loading: each waiter's offset, and the
     * offset of the record after which it could be granted. A note for the worker, which appends
     * a hand-over for each such resource (again, if the one it appended is lost); no decision
     * reads it.
     */
    public Map<Long, Long> due() {
        return Collections.unmodifiableMap(due);
    }

    /** The resources that have waiters held in memory, in their names' order (the same however they were loaded). */
    List<String> resources() {
        return byResource.keySet().stream().sorted().toList();
    }

    int length(String resource) {
        ArrayDeque<Waiter> queue = byResource.get(resource);
        return queue == null ? 0 : queue.size();
    }

    /** Where the owner's first waiting acquire stands in the resource's queue, 1 = next in line. */
    OptionalInt position(String resource, String owner) {
        int place = 1;
        for (Waiter waiter : byResource.getOrDefault(resource, new ArrayDeque<>())) {
            if (waiter.owner().equals(owner)) {
                return OptionalInt.of(place);
            }
            place++;
        }
        return OptionalInt.empty();
    }

    Optional<Waiter> first(String resource) {
        ArrayDeque<Waiter> queue = byResource.get(resource);
        return queue == null ? Optional.empty() : Optional.of(queue.peekFirst());
    }

    void join(Waiter waiter) {
        add(waiter);
        if (writesBack) {
            joined.put(waiter.offset(), waiter);
        }
    }

    void markDue(Waiter waiter, long afterOffset) {
        if (writesBack) {
            due.put(waiter.offset(), afterOffset);
        }
    }

    void leave(Waiter waiter) {
        ArrayDeque<Waiter> queue = byResource.get(waiter.resource());
        queue.remove(waiter);
        if (queue.isEmpty()) {
            byResource.remove(waiter.resource());
        }
        byRequestId.remove(waiter.requestId());
        due.remove(waiter.offset());
        if (writesBack && joined.remove(waiter.offset()) == null) {
            left.add(waiter.offset());
        }
    }

    /** The waiters whose wait ended at or before {@code now}, in the order their waits ended; they leave. */
    List<Waiter> endingUntil(Instant now) {
        List<Waiter> ended = new ArrayList<>();
        while (!deadlines.isEmpty() && !deadlines.peek().deadline().isAfter(now)) {
            Waiter next = deadlines.poll();
            if (byRequestId.get(next.requestId()) == next) {
                leave(next);
                ended.add(next);
            }
        }
        return ended;
    }

    void forReplay() {
        writesBack = false;
        joined.clear();
        left.clear();
        due.clear();
    }

    private void add(Waiter waiter) {
        byResource.computeIfAbsent(waiter.resource(), r -> new ArrayDeque<>()).addLast(waiter);
        byRequestId.put(waiter.requestId(), waiter);
        deadlines.add(waiter);
    }

    /** A status's verdict, saying how many wait and, asked by a waiter's owner, where it stands. */
    Verdict.Locked annotate(Verdict.Locked locked, Command command) {
        OptionalInt position = command instanceof Command.Status status && status.owner().isPresent()
                ? position(command.resource(), status.owner().get()) : OptionalInt.empty();
        return new Verdict.Locked(locked.holders(), length(command.resource()), position);
    }
}
