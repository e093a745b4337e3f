package dev.lockstep.store;

/**
 * A resource whose first waiter could be granted after the record at {@code afterOffset}, which
 * granted the waiter before it: a hand-over record is due on its partition.
 */
public record DueHandOver(int partition, String resource, long afterOffset) {
}
