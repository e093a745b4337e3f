'use strict';
const crypto = require('node:crypto');
const { Kafka, logLevel, AssignerProtocol } = require('kafkajs');
const { JavaPartitioner, partitionOf } = require('./partitioner');
const { parseReply, mismatch } = require('./replies');
const { HeldLease, validFrom, now } = require('./lease');
const {
  LockClientError, LockTimeoutError, InvalidCommandError, ReplyMismatchError, RequestIdInUseError, NotAcquiredError,
} = require('./errors');

/** A consumer-group assigner that gives this instance its one reply partition and nothing else. */
function onePartition(topic, partition) {
  const name = 'LockstepOnePartition';
  return () => ({
    name,
    version: 1,
    async assign({ members }) {
      return members.map(({ memberId }, i) => ({
        memberId,
        memberAssignment: AssignerProtocol.MemberAssignment.encode({
          version: 1, assignment: i === 0 ? { [topic]: [partition] } : {}, userData: Buffer.alloc(0),
        }),
      }));
    },
    protocol({ topics }) {
      return { name, metadata: AssignerProtocol.MemberMetadata.encode({ version: 1, topics, userData: Buffer.alloc(0) }) };
    },
  });
}


/** The longest an acquire may wait in its resource's queue (the protocol's wait_ms bound). */
const MAX_WAIT_MS = 300000;
/**
 * lockstep's commands over Kafka, from Node (KafkaJS). One per service instance. It reads one partition
 * of the reply topic (random unless `replyPartition` says) and has the worker answer there, as the Java
 * client does; commands go to the partition the Java client's partitioner picks, always.
 *
 *   const client = await LockClient.connect({ brokers: ['127.0.0.1:9092'] });
 *   await client.withLock('payment:42', 'worker-1', 30, 5, async (lease) => {
 *     await ledger.write(entry, lease.fencingToken);   // the resource rejects smaller tokens
 *   });
 *   await client.close();
 */
class LockClient {
  constructor({ brokers, commandTopic = 'lock.commands', replyTopic = 'lock.replies', replyPartition, requestTimeoutMs = 10000, kafka = {} }) {
    this.commandTopic = commandTopic;
    this.replyTopic = replyTopic;
    this.replyPartition = replyPartition;
    this.requestTimeoutMs = requestTimeoutMs;
    this._kafka = new Kafka({ logLevel: logLevel.NOTHING, ...kafka, brokers, clientId: kafka.clientId || 'lockstep-node' });
    this._pending = new Map();
    // The partition count a `moved` reply taught: commands are partitioned by it while the metadata knows fewer.
    this._learned = 0;
    /** Acquires published and not yet acknowledged by the broker, by request ID: a cancellation waits for them. */
    this._unacknowledged = new Map();
    this._producer = null;
    this._consumer = null;
    this._groupId = `lockstep-client-${crypto.randomUUID()}`;
    /** The next offset of the reply partition to read: where a rejoin of the reply group resumes. */
    this._nextReply = null;
  }

  /** A started client: see `start()`. */
  static async connect(options) {
    return new LockClient(options).start();
  }

  /** Connects, and starts reading the reply partition at its end before any command goes out. */
  async start() {
    const admin = this._kafka.admin();
    await admin.connect();
    let end;
    try {
      const offsets = await admin.fetchTopicOffsets(this.replyTopic);
      if (this.replyPartition === undefined) {
        this.replyPartition = offsets[crypto.randomInt(offsets.length)].partition;
      }
      const mine = offsets.find((o) => o.partition === this.replyPartition);
      if (!mine) throw new LockClientError(`${this.replyTopic} has no partition ${this.replyPartition}`);
      end = mine.high;
    } finally {
      await admin.disconnect();
    }
    // Not KafkaJS's idempotent producer: after a failed send it rolls the partition's sequence number
    // back, though the broker may have written the batch, and the broker then drops the next record
    // sent with that number (another command, a cancellation) as a duplicate while acknowledging it.
    // A record sent twice is harmless here: the worker applies a request ID once and answers every copy
    // alike. One request in flight per connection keeps the records of one send in order.
    this._producer = this._kafka.producer({ createPartitioner: JavaPartitioner, idempotent: false, maxInFlightRequests: 1 });
    await this._producer.connect();
    this._consumer = this._kafka.consumer({
      groupId: this._groupId,
      partitionAssigners: [onePartition(this.replyTopic, this.replyPartition)],
      maxWaitTimeInMs: 100,
    });
    await this._consumer.connect();
    await this._consumer.subscribe({ topics: [this.replyTopic], fromBeginning: false });
    // The group commits no offsets, so every join (the first, and each rejoin after a rebalance or a
    // restart of the consumer) would start at the partition's end, skipping replies written meanwhile
    // (a grant pushed while it rejoined). Each join seeks to the next reply not yet read instead; the
    // seek is taken before the first fetch of the new generation.
    this._nextReply = BigInt(end);
    const joined = new Promise((resolve) => {
      this._consumer.on(this._consumer.events.GROUP_JOIN, () => {
        this._consumer.seek({ topic: this.replyTopic, partition: this.replyPartition, offset: this._nextReply.toString() });
        resolve();
      });
    });
    await this._consumer.run({ autoCommit: false, eachMessage: async ({ message }) => this._read(message) });
    await joined;
    return this;
  }

  async close() {
    if (this._consumer) await this._consumer.disconnect();
    if (this._producer) await this._producer.disconnect();
  }

  /**
   * `acquired` (`reply.lock`) or `not_acquired` (`reply.retryAfterMs`). `limit` (1 to 64) asks for one of the
   * resource's shared permits (a semaphore), `mode: 'shared'` for a read-write lock's reader. With `waitSeconds` (at most 300),
   * held by another owner, it waits in the resource's queue: one command, one reply when its turn comes,
   * or `not_acquired` with `reply.reason` `wait_expired`. A timed-out acquire is cancelled. `value` (1 to 255
   * characters) is what the lease publishes, a leader's address (`reply.lock.value`).
   */
  async acquire(resource, owner, ttl, { requestId, waitSeconds, mode, limit, value } = {}) {
    const command = LockClient._command('acquire', resource, requestId, {
      owner, ttl_seconds: ttl, wait_ms: waitSeconds ? Math.round(waitSeconds * 1000) : undefined, mode, limit, value,
    });
    try {
      return await this._answer(command);
    } catch (e) {
      if (!(e instanceof LockTimeoutError)) throw e;
      await this._cancelGivenUp(command);
      throw new LockTimeoutError(`no reply to acquire ${command.request_id} of ${resource} within ${this.requestTimeoutMs} ms; cancelled`, true);
    }
  }

  /** `renewed`, `forbidden` (another owner or token) or `not_found` (expired, released). */
  renew(resource, owner, ttl, { fencingToken, requestId } = {}) {
    return this._answer(LockClient._command('renew', resource, requestId, { owner, ttl_seconds: ttl, fencing_token: fencingToken }));
  }

  /** `released`, `forbidden` or `not_found`. */
  release(resource, owner, { fencingToken, requestId } = {}) {
    return this._answer(LockClient._command('release', resource, requestId, { owner, fencing_token: fencingToken }));
  }

  /** `locked` (`reply.lock`, `reply.waiters`; with `owner`, its waiting acquire's `reply.position`) or `not_found`. */
  status(resource, { owner, requestId } = {}) {
    return this._answer(LockClient._command('status', resource, requestId, { owner }));
  }

  /**
   * Cancels `acquire` (the command sent: `request_id`, `resource`, `owner`) and resolves with the
   * cancellation's reply: `released` (the lease that very acquire granted, still live), `not_found` (it
   * granted none: refused, extended a lease its owner held, never in the log, already ended) or `forbidden`.
   * The cancellation is keyed like the acquire and published only once the broker has acknowledged the
   * acquire, so it lands after it on their partition. Fails with LockTimeoutError when the acquire is not
   * acknowledged within `timeoutMs` (the request timeout by default; nothing is then published), or the
   * cancellation's reply does not come within the request timeout.
   */
  async cancel(acquire, { timeoutMs = this.requestTimeoutMs } = {}) {
    await this._acknowledged(acquire, timeoutMs);
    return this._answer(LockClient._cancellation(acquire));
  }

  /**
   * Publishes the cancellation of an acquire its caller gave up on, its reply left to come or not; fails with
   * LockTimeoutError (`cancelled` false) when that cannot be done within the request timeout.
   */
  async _cancelGivenUp(acquire) {
    const cancellation = LockClient._cancellation(acquire);
    try {
      await this._acknowledged(acquire, this.requestTimeoutMs);
      await within(this._publish(cancellation), this.requestTimeoutMs,
        () => new LockTimeoutError(`the broker did not take cancellation ${cancellation.request_id} within ${this.requestTimeoutMs} ms`));
    } catch (e) {
      if (!(e instanceof LockClientError)) throw e;
      throw new LockTimeoutError(`no reply to acquire ${acquire.request_id} of ${acquire.resource}, and it could not be cancelled: `
        + `${e.message}; a lease it may yet be granted ends by its TTL`, false);
    }
  }

  /**
   * Resolves once the broker has acknowledged a copy of `acquire` (at once for one it acknowledged already,
   * or one this client never sent). A copy whose publication failed may or may not be in the log: it is
   * published again, the same bytes (the worker applies a request ID once and answers every copy alike).
   */
  async _acknowledged(acquire, timeoutMs) {
    const deadline = now() + timeoutMs;
    const notAcknowledged = () => new LockTimeoutError(
      `the broker has not acknowledged acquire ${acquire.request_id} of ${acquire.resource} within ${timeoutMs} ms, `
      + 'so its cancellation, which must follow it, was not published');
    for (;;) {
      const unacknowledged = this._unacknowledged.get(acquire.request_id);
      if (!unacknowledged) return;
      if (now() >= deadline) throw notAcknowledged();
      try {
        await within(unacknowledged.publication, deadline - now(), notAcknowledged);
        return;
      } catch (e) {
        if (e instanceof LockTimeoutError || !(e instanceof LockClientError)) throw e;
        // Not at once: a producer that fails every send at once would spin.
        await new Promise((resolve) => { setTimeout(resolve, Math.min(100, Math.max(0, deadline - now()))); });
        if (this._unacknowledged.get(acquire.request_id) === unacknowledged) {
          this._publish(acquire, unacknowledged.payload).catch(() => {}); // awaited by the next turn
        }
      }
    }
  }

  static _cancellation(acquire) {
    return LockClient._command('release', acquire.resource, undefined, { owner: acquire.owner, cancels: acquire.request_id });
  }

  /**
   * A HeldLease (renewing itself), or null when the lock could not be had within `waitSeconds`. Each
   * attempt waits in the resource's queue for what is left of the wait (at most 300 s; a longer wait
   * queues again when one ends): the worker grants it when its turn comes, no polling. An attempt refused
   * without waiting (a full queue) is retried with a new request ID after a jittered backoff (50 ms
   * doubling to 1 s, never past the holder's remaining time or the wait); a timed-out attempt is sent
   * again with its ID, and cancelled when the wait is over. A grant whose reply came after the lease's local
   * validity ended is not handed over: it is acquired again with a new request ID while the wait has time
   * left (the worker extends the owner's lease), else it is cancelled and the result is null.
   */
  async tryAcquire(resource, owner, ttl, waitSeconds = 0, { mode, limit } = {}) {
    const deadline = now() + waitSeconds * 1000;
    let backoff = 50;
    // Acquires whose grants came too late to act on: their leases may still be live (extended by the next
    // attempt, same owner, same token), so giving up cancels them too.
    const late = [];
    const cancelLate = () => Promise.all(late.map((given) => this._cancelGivenUp(given)
      .catch((e) => { if (!(e instanceof LockTimeoutError)) throw e; })));
    for (;;) {
      const queueing = Math.floor(Math.min(Math.max(deadline - now(), 0), MAX_WAIT_MS));
      const command = LockClient._command('acquire', resource, undefined, {
        owner, ttl_seconds: ttl, wait_ms: queueing || undefined, mode, limit,
      });
      const firstSent = now();
      let reply;
      for (;;) {
        try {
          reply = await this._answer(command);
          break;
        } catch (e) {
          if (!(e instanceof LockTimeoutError)) throw e;
          if (now() >= deadline) {
            await cancelLate();
            await this._cancelGivenUp(command);
            return null;
          }
        }
      }
      if (reply.outcome === 'acquired') {
        // Dated from the first send (the worker may have applied that one) plus the wait in the queue.
        const received = now();
        const lease = new HeldLease(this, reply.lock, owner, ttl, validFrom(firstSent, reply, received));
        if (received < lease.validUntil) return lease.start();
        late.push(command);
        // The reply came after the lease's local validity (a worker that took over, a link that healed): the
        // worker may have ended it, so it is not handed over. Acquired again, it is extended (or granted
        // anew), dated from a send of its own.
      }
      const left = deadline - now();
      if (left <= 0) {
        // Not to be acted on, and no wait left to acquire it again: those granted too late are cancelled,
        // so the lease the worker granted does not block the lock for its TTL (one not cancelled, the
        // broker unreachable again, ends by its TTL).
        await cancelLate();
        return null;
      }
      if (reply.outcome === 'acquired' || reply.reason === 'wait_expired') continue;
      const pause = Math.min(backoff * (0.5 + Math.random() / 2), left, reply.retryAfterMs || backoff);
      await new Promise((resolve) => setTimeout(resolve, Math.max(1, pause)));
      backoff = Math.min(backoff * 2, 1000);
    }
  }

  /** A HeldLease, for `await using`; throws NotAcquiredError when the lock could not be had within the wait. */
  async lock(resource, owner, ttl, waitSeconds = 0) {
    const lease = await this.tryAcquire(resource, owner, ttl, waitSeconds);
    if (!lease) throw new NotAcquiredError(`${resource} is held by another owner (waited ${waitSeconds} s)`);
    return lease;
  }

  /** Runs `action(lease)` under a renewed lease and releases it; null when not acquired within the wait. */
  async withLock(resource, owner, ttl, waitSeconds, action) {
    const lease = await this.tryAcquire(resource, owner, ttl, waitSeconds);
    if (!lease) return null;
    try {
      return await action(lease);
    } finally {
      await lease.release();
    }
  }

  static _command(type, resource, requestId, fields) {
    const command = { request_id: requestId || crypto.randomUUID(), type, resource };
    for (const [name, value] of Object.entries(fields)) {
      if (value !== undefined && value !== null) command[name] = value;
    }
    return command;
  }

  async _answer(command) {
    const reply = await this.send(command);
    if (reply.outcome === 'invalid') throw new InvalidCommandError(reply.problem);
    return reply;
  }

  /**
   * Publishes `command` and resolves with its reply, checked to answer it. The same command again with its
   * request ID is a retry and shares the reply; another command with an ID still waiting fails with
   * RequestIdInUseError, publishing nothing.
   */
  async send(command) {
    if (!this._consumer) throw new LockClientError('the client is not started (use LockClient.connect)');
    const payload = JSON.stringify(command);
    const id = command.request_id;
    let pending = this._pending.get(id);
    if (pending && pending.payload !== payload) {
      throw new RequestIdInUseError(`request ${id} is waiting for its reply to another command`);
    }
    const publish = !pending;
    if (publish) {
      pending = { command, payload, waiters: 0 };
      pending.done = new Promise((resolve, reject) => { pending.resolve = resolve; pending.reject = reject; });
      this._pending.set(id, pending);
    }
    pending.waiters += 1;
    let timer;
    try {
      // An acquire that waits in the queue is answered up to its wait later.
      const waitFor = this.requestTimeoutMs + (command.wait_ms || 0);
      const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new LockTimeoutError(
          `no reply to ${command.type} ${id} of ${command.resource} within ${waitFor} ms`)), waitFor);
      });
      if (publish) await Promise.race([this._publish(command, payload), timeout]);
      return await Promise.race([pending.done, timeout]);
    } finally {
      clearTimeout(timer);
      pending.waiters -= 1;
      if (pending.waiters === 0 && this._pending.get(id) === pending) this._pending.delete(id);
    }
  }

  /**
   * Resolves once the broker acknowledged the record; an acquire is tracked until then (see `cancel`). To
   * `toPartition`, or where the key belongs by the count a `moved` reply taught (the producer's metadata may
   * know fewer), or where the Java partitioner puts it.
   */
  _publish(command, payload = JSON.stringify(command), toPartition = null) {
    const partition = Buffer.alloc(4);
    partition.writeInt32BE(this.replyPartition);
    const message = { key: command.resource, value: payload, headers: { kafka_replyTopic: this.replyTopic, kafka_replyPartition: partition } };
    if (toPartition !== null) message.partition = toPartition;
    else if (this._learned > 0) message.partition = partitionOf(command.resource, this._learned);
    const publication = this._producer.send({
      topic: this.commandTopic,
      acks: -1,
      messages: [message],
    }).then(() => undefined, (e) => {
      throw new LockClientError(`cannot publish to ${this.commandTopic}: ${e.message}`);
    });
    if (command.type === 'acquire') {
      const id = command.request_id;
      this._unacknowledged.set(id, { payload, publication });
      // Any acknowledged copy is in the log before whatever is published after it.
      publication.then(() => this._unacknowledged.delete(id), () => {});
    }
    return publication;
  }

  /**
   * A `moved` reply: the same command, same request ID, to the partition it names; at once the first time,
   * then after a pause doubling up to 200 ms (a partition awaiting the resource's state sends it back to the
   * one that had it until the state arrives). Its own reply answers it; a failed send leaves it to time out.
   */
  _sendOn(pending, reply) {
    this._learned = Math.max(this._learned, reply.partitions);
    pending.moves = (pending.moves ?? 0) + 1;
    const pause = pending.moves === 1 ? 0 : Math.min(200, 5 * 2 ** Math.min(pending.moves, 10));
    setTimeout(() => {
      if (pending.settled || this._pending.get(pending.command.request_id) !== pending) return;
      this._publish(pending.command, pending.payload, reply.partition).catch(() => {});
    }, pause).unref();
  }

  _read(message) {
    const next = BigInt(message.offset) + 1n;
    if (next > this._nextReply) this._nextReply = next;
    if (!message.key || !message.value) return;
    const pending = this._pending.get(message.key.toString('utf8'));
    if (!pending || pending.settled) return; // another instance's, a duplicate, or one that came too late
    const reply = parseReply(message.value);
    if (!reply || reply.requestId !== pending.command.request_id) return;
    const why = mismatch(pending.command, reply);
    if (!why && reply.outcome === 'moved') {
      this._sendOn(pending, reply);
      return;
    }
    pending.settled = true;
    if (why) pending.reject(new ReplyMismatchError(why)); else pending.resolve(reply);
  }
}

/** `promise`, or the error `timedOut()` makes once `ms` have passed. */
function within(promise, ms, timedOut) {
  let timer;
  const timeout = new Promise((_, reject) => { timer = setTimeout(() => reject(timedOut()), Math.max(0, ms)); });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

module.exports = { LockClient };
