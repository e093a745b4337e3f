package dev.lockstep.client;

import dev.lockstep.core.Problem;

/** The worker answered {@code invalid}: the command itself is wrong, and retrying it cannot help. */
public class InvalidCommandException extends LockClientException {

    private static final long serialVersionUID = 1L;

    private final transient Problem problem;

    public InvalidCommandException(Problem problem) {
        super("invalid command: " + problem.detail());
        this.problem = problem;
    }

    public Problem problem() {
        return problem;
    }
}
