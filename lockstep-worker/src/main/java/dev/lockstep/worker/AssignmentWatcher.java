package dev.lockstep.worker;

import java.util.Collection;

/** A part of the worker that acts on the command partitions it applies; told from the poll thread. */
interface AssignmentWatcher {

    void assigned(Collection<Integer> partitions);

    void revoked(Collection<Integer> partitions);
}
