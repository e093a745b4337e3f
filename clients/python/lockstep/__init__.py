"""lockstep's Python client: distributed locks on Kafka, with fencing tokens. See LockClient."""
from .client import JAVA_PARTITIONER, LockClient
from .errors import (InvalidCommand, LeaseLost, LockClientError, LockTimeout, NotAcquired, ReplyMismatch,
                     RequestIdInUse)
from .lease import HeldLease
from .replies import Lock, Reply

__all__ = ["LockClient", "HeldLease", "Lock", "Reply", "LockClientError", "LockTimeout", "InvalidCommand",
           "ReplyMismatch", "RequestIdInUse", "NotAcquired", "LeaseLost", "JAVA_PARTITIONER"]
