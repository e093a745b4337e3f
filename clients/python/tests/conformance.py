"""Runs the shared protocol cases (clients/cases.json) through the Python client."""
import json
import os
import pathlib
import threading
import time
import urllib.request
import uuid
from datetime import datetime

from confluent_kafka import TopicPartition

from lockstep import InvalidCommand, LockClient

CASES = json.loads((pathlib.Path(__file__).resolve().parents[2] / "cases.json").read_text("utf-8"))["cases"]


def settings():
    """Where the worker under test is; a suite without one fails, saying what to start."""
    bootstrap = os.environ.get("LOCKSTEP_BOOTSTRAP")
    if not bootstrap:
        raise RuntimeError("set LOCKSTEP_BOOTSTRAP to a broker with a lockstep worker running "
                           "(target/lockstep dev starts one at 127.0.0.1:9092); ClientSuitesIT does this in CI")
    return dict(bootstrap_servers=bootstrap,
                command_topic=os.environ.get("LOCKSTEP_COMMAND_TOPIC", "lock.commands"),
                reply_topic=os.environ.get("LOCKSTEP_REPLY_TOPIC", "lock.replies"))


def dead_letter_topic():
    """A topic no worker reads commands from: commands sent there are never answered."""
    return os.environ.get("LOCKSTEP_DEAD_LETTER_TOPIC", "lock.commands.dlq")


def broker_link():
    """(control URL, proxied bootstrap) of the TCP proxy between some clients and the broker, which a case
    cuts; a suite without one fails, saying what to start."""
    control, bootstrap = os.environ.get("LOCKSTEP_BROKER_LINK"), os.environ.get("LOCKSTEP_PROXIED_BOOTSTRAP")
    if not control or not bootstrap:
        raise RuntimeError("set LOCKSTEP_BROKER_LINK (the control URL of a TCP proxy in front of the broker: POST "
                           "/cut, /blackhole, /heal) and LOCKSTEP_PROXIED_BOOTSTRAP (the bootstrap address through "
                           "it); ClientSuitesIT starts one in CI")
    return control.rstrip("/"), bootstrap


class Clients:
    """A case's clients by the name its steps give: the suite's own (no name), ``other`` (a second
    instance, reading its own reply partition) and ``proxied`` (connected through the broker link)."""

    def __init__(self, main, options):
        self._clients = {None: main}
        self._options = options
        self._started = []

    def __getitem__(self, name):
        if name not in self._clients:
            options = dict(self._options)
            if name == "proxied":
                options["bootstrap_servers"] = broker_link()[1]
            elif name != "other":
                raise ValueError("unknown client " + name)
            client = LockClient(**options).start()
            self._started.append(client)
            self._clients[name] = client
        return self._clients[name]

    def close(self):
        for client in self._started:
            client.close()


class Case:
    """One case's state: tokens saved, commands sent, leases held, acquires in flight, ends read."""

    def __init__(self, test, clients, name):
        self.test = test
        self.clients = clients
        self.name = name
        self.resource = "py-%s-%s" % (name.replace(" ", "-"), uuid.uuid4().hex[:8])
        self.saved = {}
        self.sent = {}
        self.held = {}
        self.losses = {}
        self.running = {}
        self.ends = {}
        self.link_touched = False

    def run(self, steps, prefix=""):
        for number, step in enumerate(steps, 1):
            where = "%s, step %s%d (%s)" % (self.name, prefix, number, step["call"])
            poll = step.get("poll_ms")
            deadline = time.monotonic() + (poll or 0) / 1000.0
            while True:
                try:
                    self.step(step, where)
                    break
                except AssertionError:
                    if poll is None or time.monotonic() >= deadline:
                        raise
                    time.sleep(0.1)

    def close(self):
        if self.link_touched:
            link(broker_link()[0], "heal")  # the next case finds the link open, whatever this one left
        for lease in self.held.values():
            lease.release()

    def step(self, step, where):
        test, call = self.test, step["call"]
        client = self.clients[step.get("client")]
        if call == "sleep":
            time.sleep(step["sleep_ms"] / 1000.0)
        elif call == "link":
            self.link_touched = True
            link(broker_link()[0], step["action"])
        elif call == "rejoin":
            rejoin(client, lambda: self.run(step["during"], "%s." % where))
        elif call == "check":
            lease = self.held[step["held"]]
            test.assertEqual(step["expect"], "lost" if lease.lost.is_set() else "live", "%s: %s" % (where, lease.loss))
            if step["expect"] == "live":
                lease.check()
        elif call == "await_loss":
            lease = self.held[step["held"]]
            test.assertTrue(lease.lost.wait(step["within_ms"] / 1000.0), "%s: not lost in time" % where)
            test.assertEqual(step["reason"], lease.loss.reason, where)
            if "before" in step:
                test.assertLess(self.losses[step["held"]], self.ends[step["before"]],
                                "%s: the loss came after the lease's end on the server" % where)
        elif call == "await":
            thread, result = self.running.pop(step["async"])
            thread.join()
            if isinstance(result[0], Exception):
                raise result[0]
            self.check(step, where, *result[0])
        elif "async" in step:
            result = []

            def in_background():
                try:
                    result.append(self.call(client, step, where))
                except Exception as e:  # handed to the step that awaits it
                    result.append(e)
            thread = threading.Thread(target=in_background)
            thread.start()
            self.running[step["async"]] = (thread, result)
        else:
            self.check(step, where, *self.call(client, step, where))

    def call(self, client, step, where):
        """(outcome, lock, reply) of one call; ``invalid`` with the fields named as the reply."""
        try:
            return call_client(self, client, step)
        except InvalidCommand as e:
            return "invalid", None, e

    def check(self, step, where, outcome, lock, reply):
        test = self.test
        test.assertEqual(step["expect"], outcome, where)
        if outcome == "invalid":
            test.assertIn(step["field"], reply.fields(), where)
            return
        if "save" in step:
            self.saved[step["save"]] = lock.fencing_token
        if "same_token" in step:
            test.assertEqual(self.saved[step["same_token"]], lock.fencing_token, where)
        if "greater_token" in step:
            test.assertGreater(lock.fencing_token, self.saved[step["greater_token"]], where)
        if "lock_owner" in step:
            test.assertEqual(step["lock_owner"], lock.owner, where)
        if "permit" in step:
            test.assertEqual(step["permit"], lock.permit, where)
        if "lock_value" in step:
            test.assertEqual(step["lock_value"], lock.value, where)
        if step.get("retry_after"):
            test.assertGreater(reply.retry_after_ms, 0, where)
        if "position" in step:
            test.assertEqual(step["position"], reply.position, where)
        if "save_end" in step:
            self.ends[step["save_end"]] = datetime.fromisoformat(lock.expires_at.replace("Z", "+00:00")).timestamp()


def call_client(case, client, step):
    """(outcome, lock, reply) of one step's call."""
    resource, call = case.resource, step["call"]
    token = step.get("token")
    if token == "wrong":
        token = max(case.saved.values()) + 1000
    elif token is not None:
        token = case.saved[token]
    if call == "try_acquire":
        lease = client.try_acquire(resource, step["owner"], step["ttl"], wait=step["wait_ms"] / 1000.0)
        if lease is None:
            return "not_acquired", None, None
        lease.release()
        return "acquired", lease.lock, None
    if call == "hold":
        lease = client.try_acquire(resource, step["owner"], step["ttl"], wait=step.get("wait_ms", 0) / 1000.0)
        if lease is None:
            return "not_acquired", None, None
        case.held[step["held"]] = lease
        lease.on_lost(lambda loss: case.losses.setdefault(step["held"], time.time()))
        if "release_after_ms" in step:
            threading.Timer(step["release_after_ms"] / 1000.0, lease.release).start()
        return "acquired", lease.lock, None
    if call == "acquire":
        request_id = str(uuid.uuid4())
        case.sent[step.get("sent")] = {"request_id": request_id, "resource": resource, "owner": step["owner"]}
        wait = step["wait_ms"] / 1000.0 if "wait_ms" in step else None
        reply = client.acquire(resource, step["owner"], step["ttl"], request_id=request_id, wait=wait,
                               mode=step.get("mode"), limit=step.get("limit"), value=step.get("value"))
    elif call == "cancel":
        reply = client.cancel(case.sent[step["cancels"]])
    elif call == "renew":
        reply = client.renew(resource, step["owner"], step["ttl"], fencing_token=token)
    elif call == "release":
        reply = client.release(resource, step["owner"], fencing_token=token)
    elif call == "status":
        reply = client.status(resource, owner=step.get("owner"))
    else:
        raise ValueError("unknown call " + call)
    return reply.outcome, reply.lock, reply


def link(control, action):
    """Does ``action`` (cut, blackhole, heal) to the broker link."""
    urllib.request.urlopen(urllib.request.Request(control + "/" + action, method="POST"), timeout=10)


def rejoin(client, during):
    """Runs ``during`` while the client's reply reader is away. It reads its partition by assignment,
    without a consumer group, so nothing rebalances it: away is paused, and it must read on from where it
    was, the replies written meanwhile included."""
    partition = [TopicPartition(client.reply_topic, client.reply_partition)]
    client._consumer.pause(partition)
    try:
        during()
    finally:
        client._consumer.resume(partition)


def run_case(test, clients, case):
    state = Case(test, clients, case["name"])
    try:
        state.run(case["steps"])
    finally:
        state.close()
