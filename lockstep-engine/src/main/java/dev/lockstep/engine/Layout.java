package dev.lockstep.engine;

import dev.lockstep.protocol.ResourcePartition;
import java.util.Collections;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The command topic as one partition routes it: its partition count, and the latest growth it
 * took part in (docs/architecture.md, "Growing the command topic"). A resource is decided on
 * {@code murmur2(resource) mod partitions}; during a growth, a resource that arrives from another
 * partition is decided here only once that partition's state for it was taken over.
 *
 * @param partitions the count resources are routed by
 * @param growth the latest growth this partition was sealed for, if any
 */
public record Layout(int partitions, Optional<Growth> growth) {

    public Layout {
        Objects.requireNonNull(growth, "growth");
        if (partitions < 1) {
            throw new IllegalArgumentException("a topic has at least one partition: " + partitions);
        }
    }

    /** Routing by {@code partitions}, as a partition that never grew does. */
    public static Layout of(int partitions) {
        return new Layout(partitions, Optional.empty());
    }

    /**
     * A growth from {@code from} partitions, sealed here at {@code sealOffset}.
     *
     * @param taken the partitions that carried their resources here, each with the offset of its taken record
     * @param awaiting the partitions whose resources for this one are not yet taken over
     * @param tokenBases the token base from each offset on, from the seal's (each taken may raise
     *     it): a grant made before a rise keeps its token when a cancellation asks for it later
     */
    public record Growth(int from, long sealOffset, SortedMap<Integer, Long> taken, SortedSet<Integer> awaiting,
            SortedMap<Long, Long> tokenBases) {

        public Growth {
            taken = Collections.unmodifiableSortedMap(new TreeMap<>(taken));
            awaiting = Collections.unmodifiableSortedSet(new TreeSet<>(awaiting));
            tokenBases = Collections.unmodifiableSortedMap(new TreeMap<>(tokenBases));
            if (tokenBases.isEmpty()) {
                throw new IllegalArgumentException("a growth knows the token base at its seal");
            }
        }

        /** The token base in force at {@code offset}: the earliest kept before them all. */
        long tokenBaseAt(long offset) {
            SortedMap<Long, Long> upTo = tokenBases.headMap(offset + 1);
            return upTo.isEmpty() ? tokenBases.get(tokenBases.firstKey()) : upTo.get(upTo.lastKey());
        }

        /** Whether every partition that hands resources here has. */
        public boolean done() {
            return awaiting.isEmpty();
        }
    }

    /** Whether a growth is under way here: sealed, and some resources not yet taken over. */
    public boolean growing() {
        return growth.isPresent() && !growth.get().done();
    }

    /**
     * Where the command for {@code resource} at {@code offset} of partition {@code self} is
     * decided: empty here; else the partition to send it to. Before the seal the old count routes;
     * after it the new one, and a resource that arrives from a partition not yet taken over is
     * sent back there (which decides it while not sealed, or sends it here again).
     */
    public OptionalInt sendTo(String resource, int self, long offset) {
        if (growth.isPresent() && offset < growth.get().sealOffset()) {
            int home = ResourcePartition.of(resource, growth.get().from());
            return home == self ? OptionalInt.empty() : OptionalInt.of(home);
        }
        int home = ResourcePartition.of(resource, partitions);
        if (home != self) {
            return OptionalInt.of(home);
        }
        if (growth.isPresent()) {
            Growth g = growth.get();
            int source = ResourcePartition.of(resource, g.from());
            Long takenAt = g.taken().get(source);
            if (source != self && (g.awaiting().contains(source) || takenAt != null && takenAt > offset)) {
                return OptionalInt.of(source);
            }
        }
        return OptionalInt.empty();
    }

    /** Whether {@code resource} is decided on {@code self} from here on. */
    public boolean decides(String resource, int self) {
        return sendTo(resource, self, Long.MAX_VALUE).isEmpty();
    }

    /** Sealed at {@code offset} with token base {@code tokenBase}: routed by {@code to} from there, awaiting each partition that hands resources here. */
    public Layout sealed(int self, int from, int to, long offset, long tokenBase) {
        // The earlier growths' rises stay: a grant made before one keeps its token for a cancellation.
        TreeMap<Long, Long> bases = new TreeMap<>();
        growth.ifPresent(earlier -> bases.putAll(earlier.tokenBases()));
        bases.put(offset, tokenBase);
        return new Layout(to, Optional.of(new Growth(from, offset, new TreeMap<>(), sources(from, to, self), bases)));
    }

    /** {@code source} handed its resources over at {@code offset}; the token base is {@code tokenBase} from there on. */
    public Layout taken(int source, long offset, long tokenBase) {
        Growth g = growth.orElseThrow();
        TreeMap<Integer, Long> taken = new TreeMap<>(g.taken());
        taken.put(source, offset);
        TreeSet<Integer> awaiting = new TreeSet<>(g.awaiting());
        awaiting.remove(source);
        TreeMap<Long, Long> bases = new TreeMap<>(g.tokenBases());
        bases.put(offset, tokenBase);
        return new Layout(partitions, Optional.of(new Growth(g.from(), g.sealOffset(), taken, awaiting, bases)));
    }

    /**
     * The text stored with a partition's position: {@code partitions=T}, and for a growth
     * {@code ;from=F;seal=S;taken=P@O,...;awaiting=P,...;bases=O:B,...}.
     */
    public String text() {
        StringBuilder text = new StringBuilder("partitions=").append(partitions);
        growth.ifPresent(g -> {
            text.append(";from=").append(g.from()).append(";seal=").append(g.sealOffset()).append(";taken=");
            g.taken().forEach((p, o) -> text.append(p).append('@').append(o).append(','));
            text.append(";awaiting=");
            g.awaiting().forEach(p -> text.append(p).append(','));
            text.append(";bases=");
            g.tokenBases().forEach((o, b) -> text.append(o).append(':').append(b).append(','));
        });
        return text.toString();
    }

    /** Reads {@link #text()} back. */
    public static Layout parse(String text) {
        try {
            java.util.Map<String, String> fields = new java.util.HashMap<>();
            for (String pair : text.split(";")) {
                int eq = pair.indexOf('=');
                fields.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
            int partitions = Integer.parseInt(fields.get("partitions"));
            if (!fields.containsKey("from")) {
                return of(partitions);
            }
            TreeMap<Integer, Long> taken = new TreeMap<>();
            items(fields.get("taken")).forEach(item -> taken.put(Integer.parseInt(item.substring(0, item.indexOf('@'))),
                    Long.parseLong(item.substring(item.indexOf('@') + 1))));
            TreeSet<Integer> awaiting = new TreeSet<>();
            items(fields.get("awaiting")).forEach(item -> awaiting.add(Integer.parseInt(item)));
            TreeMap<Long, Long> bases = new TreeMap<>();
            items(fields.get("bases")).forEach(item -> bases.put(Long.parseLong(item.substring(0, item.indexOf(':'))),
                    Long.parseLong(item.substring(item.indexOf(':') + 1))));
            return new Layout(partitions, Optional.of(new Growth(Integer.parseInt(fields.get("from")),
                    Long.parseLong(fields.get("seal")), taken, awaiting, bases)));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a stored layout: " + text, e);
        }
    }

    private static java.util.List<String> items(String list) {
        return java.util.Arrays.stream(list.split(",")).filter(item -> !item.isEmpty()).toList();
    }

    /**
     * The partitions below {@code from} that hand resources to {@code self} when {@code from}
     * partitions grow to {@code to}: a key on {@code p} under {@code from} and on {@code self} under
     * {@code to} exists exactly when {@code p} and {@code self} agree modulo gcd(from, to).
     */
    static SortedSet<Integer> sources(int from, int to, int self) {
        int gcd = gcd(from, to);
        SortedSet<Integer> sources = new TreeSet<>();
        for (int p = self % gcd; p < from; p += gcd) {
            if (p != self) {
                sources.add(p);
            }
        }
        return sources;
    }

    /** The partitions below {@code to} that {@code self} hands resources to: the other way round. */
    static SortedSet<Integer> destinations(int from, int to, int self) {
        int gcd = gcd(from, to);
        SortedSet<Integer> destinations = new TreeSet<>();
        for (int q = self % gcd; q < to; q += gcd) {
            if (q != self) {
                destinations.add(q);
            }
        }
        return destinations;
    }

    private static int gcd(int a, int b) {
        return b == 0 ? a : gcd(b, a % b);
    }
}
