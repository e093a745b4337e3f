#!/usr/bin/env python3
"""A Python client of the belief fault run (lockstep-cli's ClientBeliefsIT, docs/reliability.md).

Acquires one resource over and over, waiting in its queue; holds each lease for a while, writing to the
fenced store with its token; releases it, or stops the moment the client signals its loss. It tells the
test's recorder (a TCP line server on 127.0.0.1) what it believed: a belief runs from when the lease is
handed to this code until it is released, or the client signals its loss (``HeldLease.on_lost``), on the
wall clock. A lease handed over already lost, or past its local deadline (granted while this process was
frozen, say), is not acted on, and said so (``stale``). Its standard input closing asks it to stop: a
lease held is released at once, a wait goes on until it is granted (and released) or over.

Set by the test: LOCKSTEP_BOOTSTRAP, LOCKSTEP_COMMAND_TOPIC, LOCKSTEP_REPLY_TOPIC, BELIEF_RECORDER (the
recorder's port), BELIEF_CLIENT (this client's name), BELIEF_OWNER, BELIEF_RESOURCE, BELIEF_TTL and
BELIEF_WAIT (seconds), BELIEF_LIMIT (0: the whole resource; N: one of N shared permits, with no writes:
the fence orders one holder after another), BELIEF_HOLD_MS ("MIN,MAX"), BELIEF_IDLE_MS (the longest pause
between leases).
"""
import json
import os
import random
import socket
import sys
import threading
import time

from lockstep import LeaseLost, LockClient


def now_ms():
    return int(time.time() * 1000)


class Recorder:
    """The test's recorder: lines out, an answer to each write."""

    def __init__(self, port):
        self._socket = socket.create_connection(("127.0.0.1", port))
        self._answers = self._socket.makefile("r", encoding="utf-8")
        self._guard = threading.Lock()

    def send(self, line):
        with self._guard:
            self._socket.sendall((line + "\n").encode("utf-8"))

    def write(self, client, resource, token):
        with self._guard:
            self._socket.sendall(("write %s %s %d\n" % (client, resource, token)).encode("utf-8"))
            return self._answers.readline().strip()


class Loop:
    def __init__(self, env):
        self.name = env["BELIEF_CLIENT"]
        self.owner = env["BELIEF_OWNER"]
        self.resource = env["BELIEF_RESOURCE"]
        self.ttl = int(env["BELIEF_TTL"])
        self.wait = float(env["BELIEF_WAIT"])
        self.limit = int(env["BELIEF_LIMIT"]) or None
        self.hold = [int(ms) / 1000.0 for ms in env["BELIEF_HOLD_MS"].split(",")]
        self.idle = int(env["BELIEF_IDLE_MS"]) / 1000.0
        self.recorder = Recorder(int(env["BELIEF_RECORDER"]))
        self.client = LockClient(env["LOCKSTEP_BOOTSTRAP"], command_topic=env["LOCKSTEP_COMMAND_TOPIC"],
                                 reply_topic=env["LOCKSTEP_REPLY_TOPIC"])
        self.stopping = False

    def stop_when_stdin_closes(self):
        sys.stdin.read()
        self.stopping = True

    def run(self):
        self.client.start()
        threading.Thread(target=self.stop_when_stdin_closes, daemon=True).start()
        while not self.stopping:
            self.recorder.send("waiting %s %s" % (self.name, self.resource))
            lease = self.client.try_acquire(self.resource, self.owner, self.ttl, self.wait, limit=self.limit)
            if lease is not None:
                self.hold_lease(lease)
            time.sleep(random.uniform(0, self.idle))
        self.client.close()

    def hold_lease(self, lease):
        handed = now_ms()
        lost_at = []
        lease.on_lost(lambda loss: lost_at.append((now_ms(), loss.reason)))
        if lost_at or lease.lost.is_set() or not self.valid(lease):
            self.recorder.send("stale %s %s %d" % (self.name, self.resource, lease.fencing_token))
            return
        self.recorder.send("holding %s %s %d" % (self.name, self.resource, lease.fencing_token))
        until = time.monotonic() + random.uniform(*self.hold)
        while not self.stopping and not lost_at and time.monotonic() < until:
            if self.limit is None:
                self.recorder.write(self.name, self.resource, lease.fencing_token)
            lease.lost.wait(max(0.0, min(0.25, until - time.monotonic())))
        if lost_at:
            end_ms, end = lost_at[0][0], "lost (%s)" % lost_at[0][1]
        else:
            end_ms, end = now_ms(), "released"
        lease.release()  # sends nothing for a lease lost
        self.recorder.send("belief " + json.dumps({
            "client": self.name, "resource": self.resource, "owner": self.owner, "token": lease.fencing_token,
            "limit": self.limit or 0, "from_ms": handed, "until_ms": end_ms, "end": end}))

    @staticmethod
    def valid(lease):
        try:
            lease.check()
            return True
        except LeaseLost:  # past its local deadline already
            return False


if __name__ == "__main__":
    Loop(os.environ).run()
