package dev.lockstep.worker;

import java.time.Duration;

/**
 * Where a command's time goes inside the worker, stage by stage, for {@code lockstep bench
 * --trace} (docs/benchmarks.md): told from the poll thread and the apply threads, so an
 * implementation must be thread-safe. The worker's own meters do not depend on it.
 */
public interface StageTimings {

    /** A record arrived in a poll, this long after its log-append time (the broker's clock). */
    void fetched(Duration sinceAppend);

    /** A batch began applying, this long after the poll that brought its first record. */
    void waited(Duration sincePoll);

    /** A batch's records were decoded and routed ({@code PartitionMachine.prepare}). */
    void decoded(Duration took);

    /** A batch's transaction committed, this long after it began (decoding, the rules and the database). */
    void transaction(Duration took);

    /** A batch's replies were acknowledged by the broker, this long after they were handed to the producer. */
    void acknowledged(Duration sinceSent);

    StageTimings NONE = new StageTimings() {
        @Override
        public void fetched(Duration sinceAppend) {
        }

        @Override
        public void waited(Duration sincePoll) {
        }

        @Override
        public void decoded(Duration took) {
        }

        @Override
        public void transaction(Duration took) {
        }

        @Override
        public void acknowledged(Duration sinceSent) {
        }
    };
}
