"""HeldLease: a lease that renews itself and says the moment it is lost."""
import threading
import time
import uuid

from .errors import LeaseLost, LockClientError, LockTimeout


class HeldLease:
    """Renews every ``ttl × renew_fraction`` with its fencing token, on a thread of its own.

    ``lost`` (a threading.Event) is set, and ``loss`` says why, when a renewal is answered
    ``not_found`` or ``forbidden``, or when no renewal succeeded within ``ttl × (1 − safety_margin)``
    after the last successful one was first *sent* (``expired``, on the local monotonic clock: the
    worker's "now" for it was no earlier, so the local deadline never runs past the worker's expiry).
    Leaving the ``with`` block (or ``release()``) stops the renewals and releases it with its token;
    a lost lease is not released, since someone else may hold it now."""

    def __init__(self, client, lock, owner, ttl, sent_at, renew_fraction=1 / 3, safety_margin=0.1):
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
        self._sent_at = sent_at
        self._deadline = sent_at + self._valid_for
        self._stop = threading.Event()
        self._callbacks = []
        self._guard = threading.Lock()
        self._renewer = None

    def start(self):
        self._renewer = threading.Thread(target=self._renew, name="lockstep-renew-" + self.resource, daemon=True)
        self._renewer.start()
        return self

    def on_lost(self, callback):
        """Calls ``callback(LeaseLost)`` when the lease is lost (at once, if it is already)."""
        with self._guard:
            if self.loss is None:
                self._callbacks.append(callback)
                return
        callback(self.loss)

    def check(self):
        """Raises LeaseLost when the lease is lost or past its local deadline: call it before each write."""
        if self.loss is None and time.monotonic() >= self._deadline:
            self._lose("expired")
        if self.loss is not None:
            raise self.loss

    def release(self):
        """Stops the renewals and releases the lease with its token, unless it was lost."""
        self._stop.set()
        if self._renewer is not None and self._renewer is not threading.current_thread():
            self._renewer.join()
        if self.loss is None and time.monotonic() >= self._deadline:
            self._lose("expired")
        if self.loss is None:
            self._client.release(self.resource, self.owner, fencing_token=self.fencing_token)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()

    def _renew(self):
        # Counted from the grant's first send, like the validity: a slow first reply renews sooner.
        next_renewal = self._sent_at + self._renew_every
        while not self._stop.is_set():
            now = time.monotonic()
            if now >= self._deadline:
                self._lose("expired")
                return
            if self._stop.wait(max(0.0, min(next_renewal, self._deadline) - now)):
                return
            if time.monotonic() < next_renewal:
                continue
            sent = time.monotonic()
            try:
                reply = self._client.renew(self.resource, self.owner, self.ttl, fencing_token=self.fencing_token,
                                           request_id=str(uuid.uuid4()))
            except LockTimeout:
                next_renewal = time.monotonic()  # again at once, until the deadline says otherwise
                continue
            except LockClientError:
                next_renewal = time.monotonic() + min(1.0, self._renew_every)
                continue
            if reply.outcome == "renewed":
                self._deadline = sent + self._valid_for
                next_renewal = sent + self._renew_every
            else:
                self._lose(reply.outcome)
                return

    def _lose(self, reason):
        with self._guard:
            if self.loss is not None:
                return
            self.loss = LeaseLost(self.resource, self.fencing_token, reason)
            callbacks, self._callbacks = self._callbacks, []
        self.lost.set()
        for callback in callbacks:
            callback(self.loss)
