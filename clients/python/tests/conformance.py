"""Runs the shared protocol cases (clients/cases.json) through the Python client."""
import json
import os
import pathlib
import time
import uuid

from lockstep import InvalidCommand

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


def run_case(test, client, case):
    resource = "py-%s-%s" % (case["name"].replace(" ", "-"), uuid.uuid4().hex[:8])
    saved = {}
    for number, step in enumerate(case["steps"], 1):
        where = "%s, step %d (%s)" % (case["name"], number, step["call"])
        call = step["call"]
        if call == "sleep":
            time.sleep(step["sleep_ms"] / 1000.0)
            continue
        token = step.get("token")
        if token == "wrong":
            token = max(saved.values()) + 1000
        elif token is not None:
            token = saved[token]
        if step["expect"] == "invalid":
            with test.assertRaises(InvalidCommand, msg=where) as raised:
                call_client(client, call, resource, step, token)
            test.assertIn(step["field"], raised.exception.fields(), where)
            continue
        outcome, lock, retry_after_ms = call_client(client, call, resource, step, token)
        test.assertEqual(step["expect"], outcome, where)
        if "save" in step:
            saved[step["save"]] = lock.fencing_token
        if "same_token" in step:
            test.assertEqual(saved[step["same_token"]], lock.fencing_token, where)
        if "greater_token" in step:
            test.assertGreater(lock.fencing_token, saved[step["greater_token"]], where)
        if "lock_owner" in step:
            test.assertEqual(step["lock_owner"], lock.owner, where)
        if "permit" in step:
            test.assertEqual(step["permit"], lock.permit, where)
        if "lock_value" in step:
            test.assertEqual(step["lock_value"], lock.value, where)
        if step.get("retry_after"):
            test.assertGreater(retry_after_ms, 0, where)


def call_client(client, call, resource, step, token):
    """(outcome, lock, retry_after_ms) of one step."""
    if call == "try_acquire":
        lease = client.try_acquire(resource, step["owner"], step["ttl"], wait=step["wait_ms"] / 1000.0)
        if lease is None:
            return "not_acquired", None, None
        lease.release()
        return "acquired", lease.lock, None
    if call == "acquire":
        reply = client.acquire(resource, step["owner"], step["ttl"], mode=step.get("mode"), limit=step.get("limit"),
                               value=step.get("value"))
    elif call == "renew":
        reply = client.renew(resource, step["owner"], step["ttl"], fencing_token=token)
    elif call == "release":
        reply = client.release(resource, step["owner"], fencing_token=token)
    elif call == "status":
        reply = client.status(resource)
    else:
        raise ValueError("unknown call " + call)
    return reply.outcome, reply.lock, reply.retry_after_ms
