"""The Python client against a real worker and broker: the shared protocol cases, held leases, reply matching."""
import json
import struct
import threading
import time
import unittest
import uuid

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition

from conformance import CASES, Clients, dead_letter_topic, run_case, settings
from lockstep import LeaseLost, LockClient, LockTimeout, NotAcquired, ReplyMismatch, RequestIdInUse
from lockstep.client import _Pending
from lockstep.replies import Reply, mismatch


class WithClient(unittest.TestCase):
    """A test class with one started client on the worker under test."""

    @classmethod
    def setUpClass(cls):
        cls.settings = settings()
        cls.client = LockClient(**cls.settings).start()

    @classmethod
    def tearDownClass(cls):
        cls.client.close()


class ProtocolCases(WithClient):
    """One test per case of clients/cases.json, the list the Java and Node clients pass too."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.clients = Clients(cls.client, cls.settings)

    @classmethod
    def tearDownClass(cls):
        cls.clients.close()
        super().tearDownClass()


def _case_test(case):
    return lambda self: run_case(self, self.clients, case)


for _case in CASES:
    setattr(ProtocolCases, "test_" + _case["name"].replace(" ", "_").replace("-", "_"), _case_test(_case))


class HeldLeases(WithClient):

    def resource(self):
        return "py-held-" + uuid.uuid4().hex[:8]

    def test_a_held_lease_renews_itself_and_is_released_as_the_block_ends(self):
        resource = self.resource()
        with self.client.lock(resource, "alice", ttl=3) as lease:
            first = self.client.status(resource).lock
            time.sleep(4.0)  # longer than the TTL: only renewals keep it
            later = self.client.status(resource).lock
            self.assertFalse(lease.lost.is_set(), lease.loss)
            lease.check()
            self.assertEqual(first.fencing_token, later.fencing_token)
            self.assertGreater(later.expires_at, first.expires_at)
        self.assertEqual("not_found", self.client.status(resource).outcome)

    def test_a_lease_released_elsewhere_is_signalled_lost(self):
        resource = self.resource()
        losses = []
        with self.client.lock(resource, "alice", ttl=3) as lease:
            lease.on_lost(losses.append)
            self.client.release(resource, "alice", fencing_token=lease.fencing_token)
            self.assertTrue(lease.lost.wait(5.0), "the next renewal finds the lease gone")
            self.assertEqual("not_found", lease.loss.reason)
            with self.assertRaises(LeaseLost):
                lease.check()
        self.assertEqual([lease.loss], losses)

    def test_lock_raises_when_held_elsewhere(self):
        resource = self.resource()
        with self.client.lock(resource, "alice", ttl=30):
            with self.assertRaises(NotAcquired):
                self.client.lock(resource, "bob", ttl=30, wait=0.3)

    def test_two_holders_never_overlap(self):
        resource = self.resource()
        inside = []
        overlaps = []

        def work(owner):
            for _ in range(3):
                with self.client.lock(resource, owner, ttl=10, wait=20):
                    inside.append(owner)
                    if len(inside) > 1:
                        overlaps.append(list(inside))
                    time.sleep(0.05)
                    inside.remove(owner)

        threads = [threading.Thread(target=work, args=("owner-%d" % i,)) for i in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        self.assertEqual([], overlaps)


class Waiting(WithClient):
    """An acquire that waits in the resource's queue: one command, the grant pushed when its turn comes."""

    def resource(self):
        return "py-queue-" + uuid.uuid4().hex[:8]

    def test_a_waiter_is_granted_when_the_holder_releases(self):
        resource = self.resource()
        held = self.client.acquire(resource, "holder", ttl=30)
        replies = []
        waiter = threading.Thread(target=lambda: replies.append(
            self.client.acquire(resource, "next", ttl=30, wait=20)))
        waiter.start()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and self.client.status(resource).waiters != 1:
            time.sleep(0.05)
        self.assertEqual([], replies, "it waits in the queue")
        self.assertEqual(1, self.client.status(resource, owner="next").position)
        self.assertIsNone(self.client.status(resource, owner="holder").position, "the holder does not wait")
        self.client.release(resource, "holder")
        waiter.join(10)
        self.assertEqual("acquired", replies[0].outcome)
        self.assertGreater(replies[0].lock.fencing_token, held.lock.fencing_token)
        self.client.release(resource, "next")

    def test_a_wait_that_ends_is_answered_wait_expired(self):
        resource = self.resource()
        self.client.acquire(resource, "holder", ttl=30)
        reply = self.client.acquire(resource, "late", ttl=30, wait=0.5)
        self.assertEqual("not_acquired", reply.outcome)
        self.assertEqual("wait_expired", reply.reason)
        self.client.release(resource, "holder")

    def test_try_acquire_waits_in_the_queue(self):
        resource = self.resource()
        held = self.client.acquire(resource, "holder", ttl=30)
        timer = threading.Timer(1.0, lambda: self.client.release(resource, "holder"))
        timer.start()
        lease = self.client.try_acquire(resource, "patient", ttl=30, wait=20)
        timer.join()
        self.assertIsNotNone(lease)
        self.assertGreater(lease.fencing_token, held.lock.fencing_token)
        lease.release()


class ReplyMatching(WithClient):

    def answer_by_hand(self, reply):
        """Sends a status through a client whose commands go where no worker reads them (the dead-letter
        topic), and writes ``reply`` to its reply partition while it waits: what does send() return?"""
        quiet = LockClient(self.settings["bootstrap_servers"], command_topic=dead_letter_topic(),
                           reply_topic=self.settings["reply_topic"], request_timeout=10).start()
        try:
            command = {"request_id": reply["request_id"], "type": "status", "resource": "py-by-hand"}
            result = []

            def send():
                try:
                    result.append(quiet.send(command))
                except ReplyMismatch as e:
                    result.append(e)

            waiting = threading.Thread(target=send)
            waiting.start()
            time.sleep(1.0)  # the command is out and waiting
            producer = Producer({"bootstrap.servers": self.settings["bootstrap_servers"]})
            producer.produce(self.settings["reply_topic"], partition=quiet.reply_partition,
                             key=reply["request_id"].encode(), value=json.dumps(reply).encode())
            producer.flush(10)
            waiting.join(15)
            return result[0]
        finally:
            quiet.close()

    def test_a_forged_reply_for_the_request_id_is_refused(self):
        forged = {"request_id": str(uuid.uuid4()), "type": "status", "resource": "someone-else", "outcome": "locked",
                  "lock": {"resource": "someone-else", "owner": "x", "fencing_token": 1,
                           "acquired_at": "2026-01-01T00:00:00.000Z", "expires_at": "2026-01-01T00:00:30.000Z"}}
        result = self.answer_by_hand(forged)
        self.assertIsInstance(result, ReplyMismatch)
        self.assertIn("resource someone-else", str(result))

    def test_a_reply_that_answers_the_command_is_taken(self):
        answer = {"request_id": str(uuid.uuid4()), "type": "status", "resource": "py-by-hand", "outcome": "not_found"}
        result = self.answer_by_hand(answer)
        self.assertEqual("not_found", result.outcome)

    def test_a_request_id_waiting_for_another_command_is_refused_before_publishing(self):
        waiting = {"request_id": str(uuid.uuid4()), "type": "status", "resource": "py-in-use"}
        self.client._pending[waiting["request_id"]] = _Pending(waiting, json.dumps(waiting).encode())
        try:
            with self.assertRaises(RequestIdInUse):
                self.client.send(dict(waiting, type="acquire", owner="alice", ttl_seconds=30))
        finally:
            del self.client._pending[waiting["request_id"]]

    def test_a_timed_out_acquire_is_cancelled_right_after_it(self):
        resource = "py-cancel-" + uuid.uuid4().hex[:8]
        quiet = LockClient(self.settings["bootstrap_servers"], command_topic=dead_letter_topic(),
                           reply_topic=self.settings["reply_topic"], request_timeout=1.0).start()
        try:
            with self.assertRaises(LockTimeout) as raised:
                quiet.acquire(resource, " alice ", 30)
            self.assertTrue(raised.exception.cancelled)
        finally:
            quiet.close()
        # What went out, in the partition's order: the acquire, then the release that cancels it.
        sent = [json.loads(value) for value in records_keyed(self.settings["bootstrap_servers"], dead_letter_topic(),
                                                             resource, 2)]
        self.assertEqual(["acquire", "release"], [command["type"] for command in sent])
        self.assertEqual(sent[0]["request_id"], sent[1]["cancels"])
        self.assertEqual(" alice ", sent[1]["owner"])
        self.assertNotIn("fencing_token", sent[1])

    def test_the_partitioner_cannot_be_configured_away(self):
        with self.assertRaises(ValueError):
            LockClient(self.settings["bootstrap_servers"], config={"partitioner": "consistent_random"})


def records_keyed(bootstrap, topic, key, count, timeout=20.0):
    """The values of the first ``count`` records of ``topic`` keyed ``key``, read from the beginning."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "py-reader-" + uuid.uuid4().hex,
                         "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    try:
        partitions = consumer.list_topics(topic, timeout=timeout).topics[topic].partitions
        consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in partitions])
        found = []
        deadline = time.monotonic() + timeout
        while len(found) < count and time.monotonic() < deadline:
            message = consumer.poll(0.2)
            if message is not None and message.error() is None and message.key() == key.encode("utf-8"):
                found.append(message.value())
        return found
    finally:
        consumer.close()


class Matching(unittest.TestCase):
    """The rule itself, without I/O: what makes a reply the answer to a command."""

    command = {"request_id": "r1", "type": "renew", "resource": "a", "owner": " alice ", "ttl_seconds": 30,
               "fencing_token": 7}

    def reply(self, **fields):
        body = {"request_id": "r1", "type": "renew", "resource": "a", "outcome": "renewed",
                "lock": {"resource": "a", "owner": "alice", "fencing_token": 7,
                         "acquired_at": "2026-01-01T00:00:00.000Z", "expires_at": "2026-01-01T00:00:30.000Z"}}
        body.update(fields)
        return Reply.parse(json.dumps(body).encode())

    def test_the_answer_matches(self):
        self.assertIsNone(mismatch(self.command, self.reply()))

    def test_each_wrong_part_is_named(self):
        self.assertIn("type acquire", mismatch(self.command, self.reply(type="acquire")))
        self.assertIn("resource b", mismatch(self.command, self.reply(resource="b")))
        self.assertIn("outcome locked", mismatch(self.command, self.reply(outcome="locked")))
        lock = {"resource": "a", "owner": "bob", "fencing_token": 8, "acquired_at": "x", "expires_at": "y"}
        why = mismatch(self.command, self.reply(lock=lock))
        self.assertIn("lease owner bob", why)
        self.assertIn("lease token 8", why)

    def test_a_grant_of_another_share_than_asked_is_refused(self):
        acquire = {"request_id": "r1", "type": "acquire", "resource": "a", "owner": "alice", "ttl_seconds": 30}
        shared = {"resource": "a", "owner": "alice", "fencing_token": 7, "acquired_at": "x", "expires_at": "y",
                  "mode": "shared", "limit": 4, "permit": 1}
        reply = self.reply(type="acquire", outcome="acquired", lock=shared)
        self.assertIn("a lease shared of 4", mismatch(acquire, reply))
        self.assertIsNone(mismatch(dict(acquire, limit=4), reply))
        self.assertIn("a lease shared of 4", mismatch(dict(acquire, limit=5), reply))
        self.assertIsNone(mismatch(dict(acquire, mode="shared"), self.reply(
            type="acquire", outcome="acquired", lock=dict(shared, limit=64))))

    def test_a_grant_publishing_another_value_than_asked_is_refused(self):
        acquire = {"request_id": "r1", "type": "acquire", "resource": "a", "owner": "alice", "ttl_seconds": 30,
                   "value": "10.0.0.7:8080"}
        lock = {"resource": "a", "owner": "alice", "fencing_token": 7, "acquired_at": "x", "expires_at": "y",
                "value": "10.0.0.7:8080"}
        self.assertIsNone(mismatch(acquire, self.reply(type="acquire", outcome="acquired", lock=lock)))
        self.assertIn("a lease publishing 10.0.0.9:1", mismatch(acquire, self.reply(
            type="acquire", outcome="acquired", lock=dict(lock, value="10.0.0.9:1"))))
        plain = {k: v for k, v in lock.items() if k != "value"}
        self.assertIn("a lease publishing no value", mismatch(acquire, self.reply(
            type="acquire", outcome="acquired", lock=plain)))

    def test_an_invalid_reply_may_name_no_type_or_resource(self):
        self.assertIsNone(mismatch(self.command, self.reply(type=None, resource=None, outcome="invalid", lock=None,
                                                              problem={"detail": "x"})))

    def test_a_malformed_record_is_no_reply(self):
        self.assertIsNone(Reply.parse(b"not json"))
        self.assertIsNone(Reply.parse(json.dumps({"outcome": "locked"}).encode()))


if __name__ == "__main__":
    unittest.main()
