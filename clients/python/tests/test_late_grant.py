"""A grant that came too late to act on, and a reply the reader cannot read: no broker needed."""
import json
import time
import unittest

from lockstep import LockClient
from lockstep.replies import Reply


def reply(outcome, **fields):
    body = {"request_id": "r1", "type": "acquire", "resource": "res", "outcome": outcome,
            "lock": {"resource": "res", "owner": "alice", "fencing_token": 7,
                     "acquired_at": "2026-01-01T00:00:00.000Z", "expires_at": "2026-01-01T00:00:01.000Z"}}
    body.update(fields)
    return Reply.parse(json.dumps(body).encode())


class LateGrant(unittest.TestCase):

    def test_a_grant_whose_reply_came_after_its_local_end_is_not_handed_over_nor_left_held(self):
        # A lease whose reply came after its local validity is not to be acted on: not handed over,
        # and, with no wait left to acquire it again, cancelled so it does not block the lock.
        client = LockClient("127.0.0.1:1")
        sent = []
        client.release = lambda *a, **k: sent.append(("release", k.get("fencing_token")))
        client._publish = lambda command, payload=None: sent.append((command["type"], command.get("cancels")))

        def granted_late(command):
            if command["type"] != "acquire":
                return reply("not_found", type="renew", lock=None)  # stops its renewer
            time.sleep(1.0)  # TTL 1 s: the local validity ends 0.9 s after the first send
            return reply("acquired")
        client._answer = granted_late
        lease = client.try_acquire("res", "alice", ttl=1, wait=0)
        handed_at = time.monotonic()
        if lease is not None:
            self.assertGreater(lease.valid_until, handed_at, "handed over a lease already past its local end")
        time.sleep(0.2)
        self.assertTrue(any(kind == "release" for kind, _ in sent),
                        "the lease it was granted is cancelled or released, not left to block the lock: %s" % sent)


class ReplyReader(unittest.TestCase):

    def test_a_reply_with_an_out_of_range_number_is_not_a_reply(self):
        # Reply.parse catches KeyError, TypeError and ValueError, not OverflowError: int(1e400) raises it
        # and ends the reply reader's thread (client._read has no guard), so every later request times
        # out. client.md: "only a well-formed lockstep reply is ever read".
        value = (b'{"request_id":"r1","type":"acquire","resource":"res","outcome":"acquired","lock":'
                 b'{"resource":"res","owner":"alice","fencing_token":1e400,"acquired_at":"a","expires_at":"b"}}')
        self.assertIsNone(Reply.parse(value))


if __name__ == "__main__":
    unittest.main()
