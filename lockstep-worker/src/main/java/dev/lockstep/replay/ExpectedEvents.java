package dev.lockstep.replay;

import java.util.Arrays;
import java.util.BitSet;
import java.util.stream.IntStream;

/**
 * The events one partition's replayed records make, in the order they make them: their IDs'
 * sequence and index, the command record's offset, the event's digest, and whether its publication
 * is required. Kept in arrays, not an object per event, because a replay of a long log holds
 * millions and a collector would copy every object again and again as the replay grows them.
 * Event IDs grow with the records that make them, so an ID is found by binary search.
 */
final class ExpectedEvents {

    private long[] sequences = new long[256];
    private int[] indexes = new int[256];
    private long[] offsets = new long[256];
    private long[] digests = new long[4 * 256];
    private final BitSet required = new BitSet();
    private final BitSet seen = new BitSet();
    private int size;

    void add(long sequence, int index, long offset, Digest digest, boolean mustBePublished) {
        if (size > 0 && compare(size - 1, sequence, index) >= 0) {
            throw new IllegalStateException("event " + sequence + "." + index + " made after " + sequences[size - 1] + "."
                    + indexes[size - 1] + ": a partition's events are made in the order of their IDs");
        }
        if (size == sequences.length) {
            int capacity = size * 2;
            sequences = Arrays.copyOf(sequences, capacity);
            indexes = Arrays.copyOf(indexes, capacity);
            offsets = Arrays.copyOf(offsets, capacity);
            digests = Arrays.copyOf(digests, 4 * capacity);
        }
        sequences[size] = sequence;
        indexes[size] = index;
        offsets[size] = offset;
        digests[4 * size] = digest.w0();
        digests[4 * size + 1] = digest.w1();
        digests[4 * size + 2] = digest.w2();
        digests[4 * size + 3] = digest.w3();
        required.set(size, mustBePublished);
        size++;
    }

    /** Where the event with this sequence and index is; -1 when the records make none. */
    int find(long sequence, int index) {
        int low = 0;
        int high = size - 1;
        while (low <= high) {
            int middle = (low + high) >>> 1;
            int order = compare(middle, sequence, index);
            if (order < 0) {
                low = middle + 1;
            } else if (order > 0) {
                high = middle - 1;
            } else {
                return middle;
            }
        }
        return -1;
    }

    private int compare(int at, long sequence, int index) {
        int bySequence = Long.compare(sequences[at], sequence);
        return bySequence != 0 ? bySequence : Integer.compare(indexes[at], index);
    }

    boolean matches(int at, Digest digest) {
        return digests[4 * at] == digest.w0() && digests[4 * at + 1] == digest.w1() && digests[4 * at + 2] == digest.w2()
                && digests[4 * at + 3] == digest.w3();
    }

    /** Marks the event as published (with any bytes: a differing one is a divergence of its own). */
    void seen(int at) {
        seen.set(at);
    }

    long offset(int at) {
        return offsets[at];
    }

    long sequence(int at) {
        return sequences[at];
    }

    int index(int at) {
        return indexes[at];
    }

    /** The events whose publication is required and that were not published, in order. */
    IntStream missing() {
        BitSet missing = (BitSet) required.clone();
        missing.andNot(seen);
        return missing.stream();
    }

    int size() {
        return size;
    }
}
