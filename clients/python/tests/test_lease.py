"""HeldLease's timing without a broker: how a grant is dated, when loss is signalled. A stand-in client
answers renewals as a test tells it to (at once, never, or late)."""
import json
import threading
import time
import unittest

from lockstep import LeaseLost, LockClient, NotAcquired
from lockstep.lease import HeldLease, valid_from
from lockstep.replies import Reply


def reply(outcome, **fields):
    body = {"request_id": "r1", "type": "acquire", "resource": "res", "outcome": outcome,
            "lock": {"resource": "res", "owner": "alice", "fencing_token": 7,
                     "acquired_at": "2026-01-01T00:00:00.000Z", "expires_at": "2026-01-01T00:00:30.000Z"}}
    body.update(fields)
    return Reply.parse(json.dumps(body).encode())


def renewed_once(event):
    """A renewal that hangs until ``event`` is set (at most 10 s), then is answered ``renewed``."""
    def answer():
        event.wait(10)
        return reply("renewed", type="renew")
    return answer


class StandIn:
    """The calls a HeldLease makes: renewals answered by ``answer()``, releases counted."""

    def __init__(self, answer):
        self.answer = answer
        self.renewals = []
        self.released = []

    def renew(self, resource, owner, ttl, fencing_token=None, request_id=None):
        self.renewals.append(time.monotonic())
        return self.answer()

    def release(self, resource, owner, fencing_token=None):
        self.released.append(fencing_token)


class Dating(unittest.TestCase):

    def test_a_grant_after_a_wait_longer_than_its_ttl_is_dated_from_the_send_plus_the_wait(self):
        # The acquire waits 1.2 s in the queue, longer than its TTL of 1 s; the reply says waited_ms.
        client = LockClient("127.0.0.1:1")
        client.renew = lambda *a, **k: reply("renewed", type="renew")
        client.release = lambda *a, **k: reply("released", type="release", lock=None)

        def granted_after_a_wait(command):
            time.sleep(1.2)
            return reply("acquired", waited_ms=1150)
        client._answer = granted_after_a_wait
        before = time.monotonic()
        lease = client.try_acquire("res", "alice", ttl=1, wait=5)
        try:
            self.assertFalse(lease.lost.wait(0.2), lease.loss)
            lease.check()
            # From the first send plus the wait: at least 1.15 s + 0.9 s after the call began.
            self.assertGreaterEqual(lease.valid_until, before + 1.15 + 0.9)
        finally:
            lease.release()

    def test_a_grant_whose_reply_came_after_its_validity_is_acquired_again_not_handed_over(self):
        # The first reply comes 1.1 s after the send, past the lease's local validity (0.9 s of a 1 s
        # TTL, granted at once): the worker may have ended that lease. The acquire is sent again with a
        # new request ID, and the lease that answers it is the one handed over.
        client, sent = self.answering([(1.1, reply("acquired")), (0, reply("acquired", lock={
            "resource": "res", "owner": "alice", "fencing_token": 8, "acquired_at": "2026-01-01T00:00:01.100Z",
            "expires_at": "2026-01-01T00:00:31.100Z"}))])
        lease = client.try_acquire("res", "alice", ttl=1, wait=5)
        try:
            self.assertIsNotNone(lease)
            self.assertEqual(8, lease.fencing_token, "the lease of the second acquire")
            self.assertFalse(lease.lost.wait(0.2), lease.loss)
            lease.check()
            self.assertEqual(2, len(sent))
            self.assertNotEqual(sent[0]["request_id"], sent[1]["request_id"], "a new request, dated by its own send")
            self.assertLess(sent[1]["wait_ms"], sent[0]["wait_ms"], "waiting what is left of the wait")
        finally:
            lease.release()

    def test_a_grant_whose_reply_came_after_its_validity_and_the_wait_is_not_acquired(self):
        client, sent = self.answering([(1.1, reply("acquired"))])
        self.assertIsNone(client.try_acquire("res", "alice", ttl=1, wait=0.5))
        self.assertEqual(1, len(sent), "no time left to acquire again")
        self.assertEqual([{"type": "release", "cancels": sent[0]["request_id"]}], client.published,
                         "cancelled, so its lease does not block the lock")
        client, _ = self.answering([(1.1, reply("acquired"))])
        with self.assertRaises(NotAcquired):
            client.lock("res", "alice", ttl=1, wait=0.5)

    def test_giving_up_after_a_late_grant_was_acquired_again_cancels_both(self):
        # The second attempt extends the first's lease (same owner, same token): cancelling only the
        # second releases nothing, so the first, whose grant came too late, is cancelled too.
        client, sent = self.answering([(1.1, reply("acquired")), (1.1, reply("acquired"))])
        self.assertIsNone(client.try_acquire("res", "alice", ttl=1, wait=1.5))
        self.assertEqual(2, len(sent))
        self.assertEqual(sorted(command["request_id"] for command in sent),
                         sorted(published["cancels"] for published in client.published))

    @staticmethod
    def answering(answers):
        """A client not started whose acquires are answered, in turn, by ``(delay, reply)``; the commands sent."""
        client = LockClient("127.0.0.1:1")
        client.renew = lambda *a, **k: reply("renewed", type="renew")
        client.release = lambda *a, **k: reply("released", type="release", lock=None)
        sent = []

        def answer(command):
            sent.append(command)
            delay, answered = answers[min(len(sent), len(answers)) - 1]
            time.sleep(delay)
            return answered
        client._answer = answer
        client.published = []
        client._publish = lambda command, payload=None: client.published.append(
            {"type": command["type"], "cancels": command.get("cancels")})
        return client, sent

    def test_the_start_is_never_later_than_the_replys_receipt(self):
        self.assertEqual(15.0, valid_from(10.0, reply("acquired", waited_ms=60000), 15.0))
        self.assertEqual(12.5, valid_from(10.0, reply("acquired", waited_ms=2500), 15.0))
        self.assertEqual(10.0, valid_from(10.0, reply("acquired"), 15.0), "granted at once: from the first send")

    def test_a_malformed_waited_ms_is_no_wait(self):
        self.assertIsNone(reply("acquired", waited_ms=-5).waited_ms)
        self.assertIsNone(reply("acquired", waited_ms="12").waited_ms)
        self.assertEqual(12, reply("acquired", waited_ms=12).waited_ms)


class Loss(unittest.TestCase):

    def test_loss_is_signalled_at_the_local_end_while_a_renewal_hangs(self):
        hung = threading.Event()
        standin = StandIn(renewed_once(hung))
        start = time.monotonic()
        lease = HeldLease(standin, reply("acquired").lock, "alice", 1.5, start).start()
        signalled = []
        lease.on_lost(lambda loss: signalled.append(time.monotonic()))
        try:
            self.assertTrue(lease.lost.wait(3), "lost at its local end, 1.35 s after it began")
            self.assertEqual("expired", lease.loss.reason)
            self.assertEqual(1, len(standin.renewals), "the renewal still hangs")
            self.assertGreaterEqual(signalled[0], start + 1.35)
            self.assertLess(signalled[0], start + 1.5, "before the lease can end on the server")
            with self.assertRaises(LeaseLost):
                lease.check()
        finally:
            hung.set()
            lease.release()
        self.assertEqual([], standin.released, "a lost lease is not released")

    def test_a_renewal_moves_the_end_to_its_send_plus_the_validity(self):
        standin = StandIn(lambda: reply("renewed", type="renew"))
        lease = HeldLease(standin, reply("acquired").lock, "alice", 1.2, time.monotonic()).start()
        try:
            self.assertFalse(lease.lost.wait(2.5), "renewals keep it past twice its TTL")
            lease.check()
            last = standin.renewals[-1]
            self.assertAlmostEqual(last + 1.2 * 0.9, lease.valid_until, delta=0.05)
        finally:
            lease.release()
        self.assertEqual([7], standin.released)

    def test_a_renewal_answered_after_the_end_does_not_undo_the_loss(self):
        late = threading.Event()
        standin = StandIn(renewed_once(late))
        lease = HeldLease(standin, reply("acquired").lock, "alice", 1.0, time.monotonic()).start()
        try:
            self.assertTrue(lease.lost.wait(2))
            late.set()
            time.sleep(0.2)
            with self.assertRaises(LeaseLost):
                lease.check()
        finally:
            lease.release()

    def test_a_renewal_answered_not_found_is_the_loss(self):
        standin = StandIn(lambda: reply("not_found", type="renew", lock=None))
        lease = HeldLease(standin, reply("acquired").lock, "alice", 0.9, time.monotonic()).start()
        self.assertTrue(lease.lost.wait(2))
        self.assertEqual("not_found", lease.loss.reason)
        lease.release()


if __name__ == "__main__":
    unittest.main()
