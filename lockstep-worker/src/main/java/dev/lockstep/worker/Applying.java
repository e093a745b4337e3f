package dev.lockstep.worker;

import dev.lockstep.engine.Outbound;
import dev.lockstep.engine.PartitionMachine;
import java.util.List;
import java.util.function.Consumer;

/**
 * What applies each partition batch the worker's loop hands over. The product applies with
 * {@link #BATCHES}: one transaction per batch. A benchmark measures its baselines through the very
 * same loop by supplying another, built from the worker's own parts (lockstep-bench's modes).
 */
@FunctionalInterface
public interface Applying {

    /** The product: the worker's batch processor, one transaction per partition batch. */
    Applying BATCHES = Parts::batches;

    /**
     * The worker's parts a processor may be built from.
     *
     * @param batches the product's processor
     * @param machine the engine, with the worker's settings
     * @param publishNow publishes what a processor decided and waits for the broker's acknowledgements
     */
    record Parts(RecordProcessor batches, PartitionMachine machine, Consumer<List<Outbound>> publishNow) {
    }

    RecordProcessor processor(Parts parts);
}
