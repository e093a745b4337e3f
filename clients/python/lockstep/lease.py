"""HeldLease: a lease that renews itself and says the moment it is lost."""
import threading
import time
import uuid

from .errors import LeaseLost, LockClientError, LockTimeout


def valid_from(first_sent, reply, received):
    """The earliest local time at which the lease an ``acquired`` reply grants can have begun.

    The worker started it at the log time of the record that granted it. That record came no earlier
    than the acquire's own record plus ``waited_ms`` (the log time it waited in the queue, absent when
    it was granted at once), and the acquire's record no earlier than its first send: so the lease
    began no earlier than ``first_sent + waited_ms``, on a clock that runs at the log's rate. Never
    later than the reply's receipt, ``received``: a log clock running fast cannot date it later.
    All three on ``time.monotonic()``."""
    return min(first_sent + (reply.waited_ms or 0) / 1000.0, received)


class HeldLease:
    """Renews every ``ttl × renew_fraction`` with its fencing token, on a thread of its own.

    ``valid_from`` is the local time (``time.monotonic()``) the lease began no earlier than (see
    ``valid_from()``). It is valid locally until ``valid_from + ttl × (1 − safety_margin)``, and each
    renewal answered ``renewed`` moves that end to its own send + ``ttl × (1 − safety_margin)``: the
    worker's "now" for it was no earlier than the send. So the local end never runs past the worker's,
    as long as the local clock and the log's do not drift apart by more than the margin over a TTL.

    ``lost`` (a threading.Event) is set, ``on_lost`` callbacks run and ``loss`` says why when a renewal
    is answered ``not_found`` or ``forbidden``, or at the local end (``expired``): a timer of its own
    says so then, even while a renewal hangs or the broker cannot be reached. Leaving the ``with`` block
    (or ``release()``) stops the renewals and releases it with its token; a lost lease is not released,
    since someone else may hold it now."""

    def __init__(self, client, lock, owner, ttl, valid_from, renew_fraction=1 / 3, safety_margin=0.1):
        self.lock = lock
        self.resource = lock.resource
        self.fencing_token = lock.fencing_token
        self.owner = owner
        self.ttl = ttl
        self.lost = threading.Event()
        self.loss = None
        self._client = client
        self._renew_every = ttl * renew_fraction
        self._valid_for = ttl * (1 - safety_margin)
        self._valid_from = valid_from
        self._deadline = valid_from + self._valid_for
        self._stop = threading.Event()
        self._callbacks = []
        self._guard = threading.Lock()
        self._renewer = None
        self._watchdog = None
        self._released = False

    def start(self):
        self._watchdog = threading.Thread(target=self._watch, name="lockstep-expiry-" + self.resource, daemon=True)
        self._renewer = threading.Thread(target=self._renew, name="lockstep-renew-" + self.resource, daemon=True)
        self._watchdog.start()
        self._renewer.start()
        return self

    @property
    def valid_until(self):
        """The local end (``time.monotonic()``): lost then unless a renewal moved it."""
        return self._deadline

    def on_lost(self, callback):
        """Calls ``callback(LeaseLost)`` when the lease is lost (at once, if it is already)."""
        with self._guard:
            if self.loss is None:
                self._callbacks.append(callback)
                return
        callback(self.loss)

    def check(self):
        """Raises LeaseLost when the lease is lost or past its local end: call it before each write."""
        self._expire_if_due()
        if self.loss is not None:
            raise self.loss

    def release(self):
        """Stops the renewals and releases the lease with its token, unless it was lost; once."""
        with self._guard:
            if self._released:
                return
            self._released = True
        self._stop.set()
        for thread in (self._renewer, self._watchdog):
            if thread is not None and thread is not threading.current_thread():
                thread.join()
        self._expire_if_due()
        if self.loss is None:
            self._client.release(self.resource, self.owner, fencing_token=self.fencing_token)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()

    def _watch(self):
        # The loss is signalled at the local end, whatever the renewer is doing: a renewal can hang for
        # the whole request timeout, longer than the lease. The end only moves later, so waking at the
        # old one and looking again is enough.
        while True:
            left = self._deadline - time.monotonic()
            if left <= 0 and self._expire_if_due():
                return
            if self._stop.wait(max(left, 0.001)):
                return

    def _renew(self):
        # Counted from the lease's start, like the validity: a slow first reply renews sooner.
        next_renewal = self._valid_from + self._renew_every
        while True:
            if self._stop.wait(max(0.0, next_renewal - time.monotonic())):
                return
            sent = time.monotonic()
            try:
                reply = self._client.renew(self.resource, self.owner, self.ttl, fencing_token=self.fencing_token,
                                           request_id=str(uuid.uuid4()))
            except LockTimeout:
                next_renewal = time.monotonic()  # again at once, until the lease is lost
                continue
            except LockClientError:
                next_renewal = time.monotonic() + min(1.0, self._renew_every)
                continue
            if reply.outcome == "renewed":
                with self._guard:
                    if self.loss is None:
                        self._deadline = max(self._deadline, sent + self._valid_for)
                next_renewal = sent + self._renew_every
            else:
                self._lose(reply.outcome)
                return

    def _expire_if_due(self):
        """Loses the lease when its local end has passed; True when it is lost."""
        if self.loss is None and time.monotonic() >= self._deadline:
            self._lose("expired")
        return self.loss is not None

    def _lose(self, reason):
        with self._guard:
            if self.loss is not None:
                return
            # Under the guard: a renewal answered now cannot move the end past a loss already decided.
            if reason == "expired" and time.monotonic() < self._deadline:
                return
            self.loss = LeaseLost(self.resource, self.fencing_token, reason)
            callbacks, self._callbacks = self._callbacks, []
        self._stop.set()
        self.lost.set()
        for callback in callbacks:
            callback(self.loss)
