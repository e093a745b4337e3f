#!/usr/bin/env python3
"""Hold a lock while a job runs, with lockstep's Python client.

    PYTHONPATH=clients/python python3 clients/python/examples/hold.py --resource payment:42 --owner worker-1

Waits up to --wait seconds for the lock, then runs the "job" (here: a few writes, each carrying the
fencing token) while the lease renews itself; stops writing the moment the lease is lost.
"""
import argparse
import sys
import time

from lockstep import LeaseLost, LockClient, NotAcquired


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", default="127.0.0.1:9092")
    parser.add_argument("--resource", required=True)
    parser.add_argument("--owner", required=True)
    parser.add_argument("--ttl", type=int, default=30)
    parser.add_argument("--wait", type=float, default=5.0)
    args = parser.parse_args()

    with LockClient(args.bootstrap) as client:
        try:
            with client.lock(args.resource, args.owner, ttl=args.ttl, wait=args.wait) as lease:
                lease.on_lost(lambda loss: print("lost:", loss, file=sys.stderr))
                for step in range(3):
                    lease.check()  # raises LeaseLost once the lease is gone
                    print("write %d to %s with fencing token %d" % (step, args.resource, lease.fencing_token))
                    time.sleep(0.2)
        except NotAcquired as e:
            sys.exit("not acquired: %s" % e)
        except LeaseLost as e:
            sys.exit(str(e))


if __name__ == "__main__":
    main()
