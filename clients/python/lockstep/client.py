"""LockClient: lockstep's commands over Kafka, from Python (confluent-kafka, librdkafka).

    from lockstep import LockClient

    with LockClient("127.0.0.1:9092") as client:
        with client.lock("payment:42", owner="worker-1", ttl=30, wait=5) as lease:
            ledger.write(entry, lease.fencing_token)   # the resource rejects smaller tokens
"""
import json
import random
import struct
import threading
import time
import uuid

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition

from .errors import InvalidCommand, LockClientError, LockTimeout, RequestIdInUse, ReplyMismatch
from .lease import HeldLease, valid_from
from .replies import Reply, mismatch


def murmur2(data):
    """Kafka's murmur2 of ``data`` (bytes), as the Java producer's partitioner computes it: an unsigned
    32-bit value; its low 31 bits mod the partition count are the partition."""
    m, length = 0x5BD1E995, len(data)
    h = (0x9747B28C ^ length) & 0xFFFFFFFF
    for i in range(0, length - length % 4, 4):
        k = data[i] | data[i + 1] << 8 | data[i + 2] << 16 | data[i + 3] << 24
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> 24
        k = (k * m) & 0xFFFFFFFF
        h = ((h * m) & 0xFFFFFFFF) ^ k
    tail = length & ~3
    extra = length % 4
    if extra == 3:
        h ^= data[tail + 2] << 16
    if extra >= 2:
        h ^= data[tail + 1] << 8
    if extra >= 1:
        h ^= data[tail]
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    h ^= h >> 15
    return h

# The Java client's default partitioner: murmur2(key) mod the partition count. librdkafka's default
# (consistent_random, CRC32) puts most resources on another partition than the worker expects.
JAVA_PARTITIONER = "murmur2_random"

# The longest an acquire may wait in its resource's queue (the protocol's wait_ms bound).
MAX_WAIT_SECONDS = 300


class _Pending:
    """A command waiting for its reply; identical retries of it share it."""

    def __init__(self, command, payload):
        self.command = command
        self.payload = payload
        self.moves = 0
        self.waiters = 1
        self.done = threading.Event()
        self.reply = None
        self.error = None

    def complete(self, reply):
        why = mismatch(self.command, reply)
        if why is None:
            self.reply = reply
        else:
            self.error = ReplyMismatch(why)
        self.done.set()


class LockClient:
    """One per service instance; thread-safe. Reads one partition of the reply topic (chosen at random
    unless ``reply_partition`` says) and has the worker answer there, as the Java client does.

    ``config`` holds more librdkafka properties (SASL, TLS, ...); a ``partitioner`` other than the Java
    client's is refused, since the worker orders each resource on the partition that one picks."""

    def __init__(self, bootstrap_servers, *, command_topic="lock.commands", reply_topic="lock.replies",
                 reply_partition=None, request_timeout=10.0, config=None):
        config = dict(config or {})
        partitioner = config.pop("partitioner", JAVA_PARTITIONER)
        if partitioner != JAVA_PARTITIONER:
            raise ValueError("partitioner must be %s, the Java client's, not %s: the worker refuses commands "
                             "on another partition" % (JAVA_PARTITIONER, partitioner))
        config["bootstrap.servers"] = bootstrap_servers
        self._config = config
        self.command_topic = command_topic
        self.reply_topic = reply_topic
        self.reply_partition = reply_partition
        self.request_timeout = request_timeout
        self._pending = {}
        self._guard = threading.Lock()
        self._closed = threading.Event()
        self._producer = None
        self._consumer = None
        self._reader = None
        self._learned = 0

    def start(self):
        """Connects, starts reading the reply partition at its end, and returns the client."""
        self._producer = Producer(dict(self._config, **{
            "partitioner": JAVA_PARTITIONER, "enable.idempotence": True, "acks": "all", "linger.ms": 0}))
        self._consumer = Consumer(dict(self._config, **{
            "group.id": "lockstep-client-" + str(uuid.uuid4()), "enable.auto.commit": False,
            "auto.offset.reset": "latest"}))
        try:
            topic = self._consumer.list_topics(self.reply_topic, timeout=self.request_timeout).topics.get(self.reply_topic)
            if topic is None or topic.error is not None or not topic.partitions:
                raise LockClientError("reply topic %s not found at %s" % (self.reply_topic,
                                                                         self._config["bootstrap.servers"]))
            if self.reply_partition is None:
                self.reply_partition = random.choice(sorted(topic.partitions))
            elif self.reply_partition not in topic.partitions:
                raise LockClientError("%s has no partition %d" % (self.reply_topic, self.reply_partition))
            # Start at the end before any command goes out, so no reply to this instance can be missed.
            _, end = self._consumer.get_watermark_offsets(TopicPartition(self.reply_topic, self.reply_partition),
                                                          timeout=self.request_timeout)
        except KafkaException as e:
            self._consumer.close()
            raise LockClientError("cannot reach Kafka at %s: %s" % (self._config["bootstrap.servers"], e)) from e
        self._consumer.assign([TopicPartition(self.reply_topic, self.reply_partition, end)])
        self._reader = threading.Thread(target=self._read, name="lockstep-replies", daemon=True)
        self._reader.start()
        return self

    def __enter__(self):
        return self.start() if self._reader is None else self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self._closed.set()
        if self._reader is not None:
            self._reader.join()
            self._consumer.close()
            self._producer.flush(self.request_timeout)

    # -- the four commands -------------------------------------------------------------------------

    def acquire(self, resource, owner, ttl, request_id=None, wait=None, mode=None, limit=None, value=None):
        """``acquired`` (``reply.lock``) or ``not_acquired`` (``reply.retry_after_ms``). With ``wait``
        (seconds, at most 300), held by another owner, it waits in the resource's queue: one command, one
        reply when its turn comes, or ``not_acquired`` with ``reply.reason`` ``wait_expired``. A timed-out
        acquire is cancelled (LockTimeout.cancelled): it leaves the queue, or a lease granted late is
        released at once. ``limit`` (1 to 64) asks for one of the resource's shared permits (a semaphore);
        ``mode="shared"`` for a read-write lock's reader (its writer gives no mode). ``value`` (1 to 255
        characters) is what the lease publishes, a leader's address (``reply.lock.value``)."""
        command = self._command("acquire", resource, request_id, owner=owner, ttl_seconds=ttl,
                                wait_ms=int(wait * 1000) if wait else None, mode=mode, limit=limit, value=value)
        try:
            return self._answer(command)
        except LockTimeout:
            self._cancel_given_up(command)
            raise LockTimeout("no reply to acquire %s of %s within %.1f s; cancelled"
                              % (command["request_id"], resource, self.request_timeout), cancelled=True)

    def renew(self, resource, owner, ttl, fencing_token=None, request_id=None):
        """``renewed``, ``forbidden`` (another owner or token) or ``not_found`` (expired, released)."""
        return self._answer(self._command("renew", resource, request_id, owner=owner, ttl_seconds=ttl,
                                          fencing_token=fencing_token))

    def release(self, resource, owner, fencing_token=None, request_id=None):
        """``released``, ``forbidden`` or ``not_found``."""
        return self._answer(self._command("release", resource, request_id, owner=owner, fencing_token=fencing_token))

    def status(self, resource, owner=None, request_id=None):
        """``locked`` (``reply.lock``, ``reply.waiters``) or ``not_found``. Given ``owner``, a waiting
        acquire of that owner's place in the queue is ``reply.position`` (1 = next in line)."""
        return self._answer(self._command("status", resource, request_id, owner=owner))

    def cancel(self, acquire):
        """Cancels ``acquire`` (the command dict sent: ``request_id``, ``resource``, ``owner``) and returns
        the cancellation's Reply: ``released`` (the lease that very acquire granted, still live),
        ``not_found`` (it granted none: refused, extended a lease its owner held, never in the log,
        already ended) or ``forbidden``. Keyed like the acquire, the cancellation lands on its partition
        after it; LockTimeout when the broker does not take it or no reply comes within the timeout."""
        return self._answer(self._cancellation(acquire))

    def _cancel_given_up(self, acquire):
        """Publishes the cancellation of an acquire its caller gave up on, without waiting for its reply.
        The producer keeps one partition's records in order (idempotent librdkafka), so it follows the
        acquire, which is still in the producer's queue if the broker has not taken it yet."""
        try:
            self._publish(self._cancellation(acquire))
        except LockClientError as e:
            raise LockTimeout("no reply to acquire %s of %s, and its cancellation was not published: %s; "
                              "a lease it may yet be granted ends by its TTL" % (
                                  acquire["request_id"], acquire["resource"], e)) from e

    def _cancel_quietly(self, acquire):
        """As _cancel_given_up, for a caller that returns None either way: a cancellation that cannot be
        published leaves the lease to end by its TTL."""
        try:
            self._cancel_given_up(acquire)
        except LockTimeout:
            pass

    def _cancellation(self, acquire):
        return self._command("release", acquire["resource"], None, owner=acquire["owner"],
                             cancels=acquire["request_id"])

    # -- waiting and holding -----------------------------------------------------------------------

    def try_acquire(self, resource, owner, ttl, wait=0.0, mode=None, limit=None):
        """A HeldLease (renewing itself), or None when the lock could not be had within ``wait`` seconds.
        Each attempt waits in the resource's queue for what is left of ``wait`` (at most 300 s; a longer
        wait queues again when one ends): the worker grants it when its turn comes, no polling. An
        attempt refused without waiting (a full queue) is retried with a new request ID after a jittered
        backoff (50 ms doubling to 1 s, never past the holder's remaining time or the wait); a timed-out
        attempt is sent again with its ID, and cancelled when the wait is over. A grant whose reply came
        after the lease's local validity ended is not handed over: it is acquired again with a new request
        ID while the wait has time left (the worker extends the owner's lease), else it is cancelled and the result is None."""
        deadline = time.monotonic() + wait
        backoff = 0.05
        # Acquires whose grants came too late to act on: their leases may still be live (extended by the
        # next attempt, same owner, same token), so giving up cancels them too.
        late = []
        while True:
            queueing = int(min(max(deadline - time.monotonic(), 0.0), MAX_WAIT_SECONDS) * 1000)
            command = self._command("acquire", resource, None, owner=owner, ttl_seconds=ttl,
                                    wait_ms=queueing or None, mode=mode, limit=limit)
            first_sent = time.monotonic()
            while True:
                try:
                    reply = self._answer(command)
                    break
                except LockTimeout:
                    if time.monotonic() >= deadline:
                        for given_up in late:
                            self._cancel_quietly(given_up)
                        self._cancel_given_up(command)
                        return None
            if reply.outcome == "acquired":
                # Dated from the first send (the worker may have applied that one) plus the wait in the queue.
                received = time.monotonic()
                lease = HeldLease(self, reply.lock, owner, ttl, valid_from(first_sent, reply, received))
                if received < lease.valid_until:
                    return lease.start()
                # The reply came after the lease's local validity (a worker that took over, a link that
                # healed): the worker may have ended it, so it is not handed over. Acquired again, it is
                # extended (or granted anew), dated from a send of its own.
                late.append(command)
            left = deadline - time.monotonic()
            if left <= 0:
                # Not to be acted on, and no wait left to acquire it again: those granted too late are
                # cancelled, so the lease the worker granted does not block the lock for its TTL.
                for given_up in late:
                    self._cancel_quietly(given_up)
                return None
            if reply.outcome == "acquired" or reply.reason == "wait_expired":
                continue
            pause = min(backoff * random.uniform(0.5, 1.0), left, (reply.retry_after_ms or 0) / 1000.0 or backoff)
            time.sleep(max(pause, 0.001))
            backoff = min(backoff * 2, 1.0)

    def lock(self, resource, owner, ttl, wait=0.0, mode=None, limit=None):
        """A HeldLease for a ``with`` block: renewed while the block runs, released as it ends; raises
        NotAcquired when the lock could not be had within ``wait`` seconds."""
        from .errors import NotAcquired
        lease = self.try_acquire(resource, owner, ttl, wait, mode, limit)
        if lease is None:
            raise NotAcquired("%s is held by another owner (waited %.1f s)" % (resource, wait))
        return lease

    # -- the exchange --------------------------------------------------------------------------------

    @staticmethod
    def _command(kind, resource, request_id, **fields):
        command = {"request_id": request_id or str(uuid.uuid4()), "type": kind, "resource": resource}
        command.update({name: value for name, value in fields.items() if value is not None})
        return command

    def _answer(self, command):
        reply = self.send(command)
        if reply.outcome == "invalid":
            raise InvalidCommand(reply.problem or {})
        return reply

    def send(self, command):
        """Publishes ``command`` (a dict) and returns its Reply, checked to answer it. The same command
        again with its request ID is a retry and shares the reply; another command with an ID still
        waiting fails with RequestIdInUse, publishing nothing."""
        if self._reader is None:
            raise LockClientError("the client is not started (use start(), or a with block)")
        payload = json.dumps(command, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        request_id = command["request_id"]
        with self._guard:
            pending = self._pending.get(request_id)
            if pending is not None and pending.payload != payload:
                raise RequestIdInUse("request %s is waiting for its reply to another command" % request_id)
            publish = pending is None
            if publish:
                pending = self._pending[request_id] = _Pending(command, payload)
            else:
                pending.waiters += 1
        try:
            if publish:
                self._publish(command, payload)
            # An acquire that waits in the queue is answered up to its wait later.
            timeout = self.request_timeout + command.get("wait_ms", 0) / 1000.0
            if not pending.done.wait(timeout):
                raise LockTimeout("no reply to %s %s of %s within %.1f s" % (
                    command["type"], request_id, command["resource"], timeout))
            if pending.error is not None:
                raise pending.error
            return pending.reply
        finally:
            with self._guard:
                pending.waiters -= 1
                if pending.waiters == 0 and self._pending.get(request_id) is pending:
                    del self._pending[request_id]

    def _publish(self, command, payload=None):
        if payload is None:
            payload = json.dumps(command, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        failures = []
        headers = [("kafka_replyTopic", self.reply_topic.encode("utf-8")),
                   ("kafka_replyPartition", struct.pack(">i", self.reply_partition))]
        try:
            self._produce(command, payload, headers, None, lambda err, _: err and failures.append(err))
        except (KafkaException, BufferError) as e:
            raise LockClientError("cannot publish to %s: %s" % (self.command_topic, e)) from e
        if self._producer.flush(self.request_timeout) > 0:
            raise LockTimeout("the broker did not take %s %s within %.1f s" % (
                command["type"], command["request_id"], self.request_timeout))
        if failures:
            raise LockClientError("cannot publish to %s: %s" % (self.command_topic, failures[0]))

    def _produce(self, command, payload, headers, partition, on_delivery):
        """To ``partition``, or where the key belongs by the count a ``moved`` reply taught (while the
        producer's metadata may know fewer), or where librdkafka's murmur2 puts it."""
        key = command["resource"].encode("utf-8")
        if partition is None and self._learned > 0:
            partition = (murmur2(key) & 0x7FFFFFFF) % self._learned
        extra = {} if partition is None else {"partition": partition}
        self._producer.produce(self.command_topic, key=key, value=payload, headers=headers, on_delivery=on_delivery,
                               **extra)

    def _send_on(self, pending, reply):
        """A ``moved`` reply: the same command, same request ID, to the partition it names; at once the
        first time, then after a pause doubling up to 0.2 s (a partition awaiting the resource's state
        sends it back to the one that had it until the state arrives). Its own reply answers it."""
        self._learned = max(self._learned, reply.partitions)
        pending.moves += 1
        pause = 0.0 if pending.moves == 1 else min(0.2, 0.005 * 2 ** min(pending.moves, 10))
        headers = [("kafka_replyTopic", self.reply_topic.encode("utf-8")),
                   ("kafka_replyPartition", struct.pack(">i", self.reply_partition))]

        def send():
            # Not after its caller gave up (timed out, an acquire cancelled): it is no longer pending then.
            with self._guard:
                waiting = self._pending.get(pending.command["request_id"]) is pending
            if waiting and not self._closed.is_set() and not pending.done.is_set():
                try:
                    self._produce(pending.command, pending.payload, headers, reply.partition, None)
                    self._producer.poll(0)
                except (KafkaException, BufferError):
                    pass  # no reply comes: the caller's timeout says so
        timer = threading.Timer(pause, send)
        timer.daemon = True
        timer.start()

    def _read(self):
        while not self._closed.is_set():
            message = self._consumer.poll(0.1)
            if message is None or message.error() is not None or message.key() is None:
                continue
            request_id = message.key().decode("utf-8", "replace")
            with self._guard:
                pending = self._pending.get(request_id)
            if pending is None or pending.done.is_set():
                continue  # another instance's, a duplicate, or one that came too late
            reply = Reply.parse(message.value())
            if reply is not None and reply.request_id == request_id:
                if reply.outcome == "moved" and mismatch(pending.command, reply) is None:
                    self._send_on(pending, reply)
                else:
                    pending.complete(reply)
