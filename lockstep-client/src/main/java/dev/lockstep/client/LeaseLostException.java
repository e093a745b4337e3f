package dev.lockstep.client;

/** The lease an action ran under was lost before the action finished: its work may have overlapped another holder's. */
public class LeaseLostException extends LockClientException {

    private static final long serialVersionUID = 1L;

    private final transient LeaseLost loss;

    public LeaseLostException(LeaseLost loss) {
        super("lease on " + loss.resource() + " was lost: " + loss.reason());
        this.loss = loss;
    }

    public LeaseLost loss() {
        return loss;
    }
}
