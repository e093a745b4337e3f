package dev.lockstep.engine;

/**
 * Why a partition's epoch began, and so whether its starting state can be rebuilt from the
 * command log: a replay continues through an epoch whose state the log holds, and needs a
 * checkpoint for one whose state came from elsewhere.
 */
public enum EpochOrigin {
    /** The partition's first records: the state is empty, tokens start at the recorded base. */
    FIRST_START(true),
    /** Same topic, same records, another setting recorded (settings changed, topic ID adopted): the state goes on. */
    CONTINUED(true),
    /** The command topic under the same name has a new topic ID: the state came from the old topic's log. */
    TOPIC_RECREATED(false),
    /** Records were gone from the log before they were applied: the partition is quarantined, its state is not the log's. */
    RECORDS_LOST(false);

    private final boolean stateFromLog;

    EpochOrigin(boolean stateFromLog) {
        this.stateFromLog = stateFromLog;
    }

    /** Whether the state at the epoch's start follows from the log records before it (none, for a first start). */
    public boolean stateFromLog() {
        return stateFromLog;
    }
}
