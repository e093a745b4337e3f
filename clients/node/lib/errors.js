'use strict';
// The failures of a lockstep call; every one is a LockClientError.

class LockClientError extends Error {
  constructor(message) {
    super(message);
    this.name = this.constructor.name;
  }
}

/** No reply within the request timeout; for an acquire, `cancelled` says a cancellation followed it. */
class LockTimeoutError extends LockClientError {
  constructor(message, cancelled = false) {
    super(message);
    this.cancelled = cancelled;
  }
}

/** The worker answered `invalid`: `problem` is its RFC 9457 problem, `fields` the fields it names. */
class InvalidCommandError extends LockClientError {
  constructor(problem) {
    super((problem && problem.detail) || 'invalid command');
    this.problem = problem || {};
    this.fields = (this.problem.errors || []).map((error) => error.field);
  }
}

/** A reply carried the request's ID but does not answer the command sent. */
class ReplyMismatchError extends LockClientError {}

/** Another command with this request ID still waits for its reply; nothing was published. */
class RequestIdInUseError extends LockClientError {}

/** `lock()` could not get the lease within its wait. */
class NotAcquiredError extends LockClientError {}

/** A held lease was lost: `reason` is `not_found`, `forbidden` or `expired`. */
class LeaseLostError extends LockClientError {
  constructor(resource, fencingToken, reason) {
    super(`lease of ${resource} (token ${fencingToken}) lost: ${reason}`);
    this.resource = resource;
    this.fencingToken = fencingToken;
    this.reason = reason;
  }
}

module.exports = {
  LockClientError, LockTimeoutError, InvalidCommandError, ReplyMismatchError, RequestIdInUseError,
  NotAcquiredError, LeaseLostError,
};
