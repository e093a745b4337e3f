"""The failures of a lockstep call; every one is a LockClientError."""


class LockClientError(Exception):
    """Cannot publish, broker or reply topic unreachable; the base of every lockstep failure."""


class LockTimeout(LockClientError):
    """No reply within the request timeout. For an acquire, ``cancelled`` says that a cancellation
    was published right after it, so a lease granted late is released again (protocol: cancellation)."""

    def __init__(self, message, cancelled=False):
        super().__init__(message)
        self.cancelled = cancelled


class InvalidCommand(LockClientError):
    """The worker answered ``invalid``; ``problem`` is its RFC 9457 problem, ``errors`` its field errors."""

    def __init__(self, problem):
        super().__init__(problem.get("detail") or "invalid command")
        self.problem = problem
        self.errors = problem.get("errors") or []

    def fields(self):
        return [error.get("field") for error in self.errors]


class ReplyMismatch(LockClientError):
    """A reply carried the request's ID but does not answer the command sent (a reused ID, a forged record)."""


class RequestIdInUse(LockClientError):
    """Another command with this request ID is still waiting for its reply; nothing was published."""


class NotAcquired(LockClientError):
    """``lock()`` could not get the lease within its wait."""


class LeaseLost(LockClientError):
    """A held lease was lost: ``reason`` is ``not_found``, ``forbidden`` or ``expired``."""

    def __init__(self, resource, fencing_token, reason):
        super().__init__("lease of %s (token %d) lost: %s" % (resource, fencing_token, reason))
        self.resource = resource
        self.fencing_token = fencing_token
        self.reason = reason
