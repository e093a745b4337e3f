"""Replies as the worker writes them, and whether one answers the command that was sent."""
from dataclasses import dataclass
from typing import Optional

# The outcomes each command type can have; "invalid" is possible for every one.
POSSIBLE = {
    "acquire": {"acquired", "not_acquired"},
    "renew": {"renewed", "forbidden", "not_found"},
    "release": {"released", "forbidden", "not_found"},
    "status": {"locked", "not_found"},
}


@dataclass(frozen=True)
class Lock:
    """A lease: whose, which token, granted when, valid until when (ISO-8601 UTC, as the worker wrote them)."""
    resource: str
    owner: str
    fencing_token: int
    acquired_at: str
    expires_at: str
    permit: int = 0
    """Which of the resource's permits it holds: 0 for a lock."""
    mode: str = "exclusive"
    """``exclusive`` (the whole resource) or ``shared`` (one of ``limit`` permits)."""
    limit: int = 1
    value: Optional[str] = None
    """What the lease publishes (a leader's address), when its acquire gave one."""


@dataclass(frozen=True)
class Reply:
    """One reply: ``outcome`` is one of acquired, not_acquired, renewed, released, locked, not_found,
    forbidden, invalid; ``raw`` is the JSON as the worker wrote it."""
    request_id: str
    type: Optional[str]
    resource: Optional[str]
    outcome: str
    lock: Optional[Lock]
    retry_after_ms: Optional[int]
    problem: Optional[dict]
    raw: str
    reason: Optional[str] = None
    """Why an acquire that waited is ``not_acquired``: ``wait_expired``, ``queue_full`` or ``cancelled``."""
    waiters: int = 0
    """On ``locked``: how many acquires wait in the resource's queue."""
    position: Optional[int] = None
    """On ``locked``, for a status that named an owner who waits: its place in the queue, 1 = next."""
    waited_ms: Optional[int] = None
    """On ``acquired`` after a wait in the queue: the log time from the acquire's own record to the grant,
    which dates the lease (``lease.valid_from``)."""
    partition: Optional[int] = None
    """On ``moved``: the partition to send the same command (same request ID) to; the client does."""
    partitions: Optional[int] = None
    """On ``moved``: the command topic's partition count as that partition routes."""

    @staticmethod
    def parse(value):
        """The reply in ``value`` (bytes), or None when it is not a well-formed lockstep reply."""
        import json
        try:
            text = value.decode("utf-8")
            body = json.loads(text)
        except (UnicodeDecodeError, ValueError, AttributeError):
            return None
        if not isinstance(body, dict) or not isinstance(body.get("request_id"), str) \
                or not isinstance(body.get("outcome"), str):
            return None
        lock = body.get("lock")
        if lock is not None:
            try:
                lock = Lock(lock["resource"], lock["owner"], int(lock["fencing_token"]), lock["acquired_at"],
                            lock["expires_at"], int(lock.get("permit", 0)), lock.get("mode", "exclusive"),
                            int(lock.get("limit", 1)), lock.get("value"))
            except (KeyError, TypeError, ValueError, OverflowError):
                return None
        waited = body.get("waited_ms")
        partition, partitions = body.get("partition"), body.get("partitions")
        if body["outcome"] == "moved" and not (isinstance(partition, int) and not isinstance(partition, bool)
                                               and _count(partitions) and 0 <= partition < partitions):
            return None
        return Reply(body["request_id"], body.get("type"), body.get("resource"), body["outcome"], lock,
                     body.get("retry_after_ms"), body.get("problem"), text, body.get("reason"),
                     body.get("waiters", 0), body.get("position"),
                     waited if isinstance(waited, int) and not isinstance(waited, bool) and waited >= 0 else None,
                     partition if body["outcome"] == "moved" else None,
                     partitions if body["outcome"] == "moved" else None)


def _count(value):
    """Whether ``value`` is a positive integer (not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def mismatch(command, reply):
    """Why ``reply`` does not answer ``command`` (a dict as sent); None when it does.

    A request ID is the caller's to choose, so a reply carrying it is not yet the answer: it must name
    the command's type and resource, have an outcome that type can have, and a lease in it must be of
    that resource, of the command's owner as the worker stores it (stripped) and of the token sent."""
    wrong = []
    # A moved reply names the command it sends on, and no lease.
    invalid = reply.outcome in ("invalid", "moved")
    kind = command["type"]
    # An invalid reply names no type or resource when those were what was invalid.
    if reply.type != kind and not (invalid and reply.type is None):
        wrong.append("type %s" % reply.type)
    if reply.resource != command["resource"] and not (invalid and reply.resource is None):
        wrong.append("resource %s" % reply.resource)
    if not invalid and reply.outcome not in POSSIBLE.get(kind, ()):
        wrong.append("outcome %s" % reply.outcome)
    lease = reply.lock
    if lease is not None:
        if lease.resource != command["resource"]:
            wrong.append("lease of %s" % lease.resource)
        owner = command.get("owner")
        if kind != "status" and (not isinstance(owner, str) or lease.owner != owner.strip()):
            wrong.append("lease owner %s" % lease.owner)
        token = command.get("fencing_token")
        if token is not None and lease.fencing_token != token:
            wrong.append("lease token %d" % lease.fencing_token)
        if kind == "acquire" and (lease.mode, lease.limit) != asked_share(command):
            # A caller that asked for the whole resource never takes a shared permit for it.
            wrong.append("a lease %s of %d" % (lease.mode, lease.limit))
        if kind == "acquire" and lease.value != command.get("value"):
            # A leader that asked to publish its address never takes a grant publishing another's.
            wrong.append("a lease publishing %s" % (lease.value or "no value"))
    if not wrong:
        return None
    return "reply to request %s names %s, but the request was %s of %s" % (
        reply.request_id, ", ".join(wrong), kind, command["resource"])


def asked_share(command):
    """(mode, limit) an acquire asks for, as the worker reads it: a limit alone, or mode shared, is shared
    (of 64 unless the limit says); neither is the whole resource."""
    mode, limit = command.get("mode"), command.get("limit")
    if mode == "exclusive" or (mode is None and limit is None):
        return "exclusive", 1
    return "shared", limit if limit is not None else 64
