'use strict';
// The Node client against a real worker: held leases, mutual exclusion, reply matching.
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { Kafka, KafkaJSRequestTimeoutError, logLevel } = require('kafkajs');
// KafkaJS's broker connection, whose produce a test makes lose its response.
const Broker = require('kafkajs/src/broker');
const {
  LockClient, LeaseLostError, LockTimeoutError, NotAcquiredError, ReplyMismatchError, RequestIdInUseError,
} = require('..');
const { settings, deadLetterTopic } = require('./settings');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const fresh = (name) => `node-${name}-${crypto.randomUUID().slice(0, 8)}`;

describe('waiting in the queue', () => {
  let client;
  before(async () => { client = await LockClient.connect(settings()); });
  after(async () => { await client.close(); });

  it('grants a waiter when the holder releases, one command, no polling', async () => {
    const resource = fresh('queue');
    const held = await client.acquire(resource, 'holder', 30);
    let settled = false;
    const waiting = client.acquire(resource, 'next', 30, { waitSeconds: 20 }).then((reply) => { settled = true; return reply; });
    for (let i = 0; i < 200 && (await client.status(resource)).waiters !== 1; i += 1) await sleep(50);
    assert.equal(settled, false, 'it waits in the queue');
    assert.equal((await client.status(resource, { owner: 'next' })).position, 1);
    assert.equal((await client.status(resource, { owner: 'holder' })).position, null, 'the holder does not wait');
    await client.release(resource, 'holder');
    const granted = await waiting;
    assert.equal(granted.outcome, 'acquired');
    assert.ok(granted.lock.fencingToken > held.lock.fencingToken);
    await client.release(resource, 'next');
  });

  it('answers a wait that ends wait_expired', async () => {
    const resource = fresh('patience');
    await client.acquire(resource, 'holder', 30);
    const reply = await client.acquire(resource, 'late', 30, { waitSeconds: 0.5 });
    assert.equal(reply.outcome, 'not_acquired');
    assert.equal(reply.reason, 'wait_expired');
    await client.release(resource, 'holder');
  });

  it('tryAcquire waits in the queue', async () => {
    const resource = fresh('try');
    const held = await client.acquire(resource, 'holder', 30);
    setTimeout(() => client.release(resource, 'holder'), 1000);
    const lease = await client.tryAcquire(resource, 'patient', 30, 20);
    assert.ok(lease);
    assert.ok(lease.fencingToken > held.lock.fencingToken);
    await lease.release();
  });
});

describe('held leases', () => {
  let client;
  before(async () => { client = await LockClient.connect(settings()); });
  after(async () => { await client.close(); });

  it('renews itself while held and is released as it is disposed', async () => {
    const resource = fresh('held');
    // What `await using lease = await client.lock(...)` does (TypeScript 5.2+, or Node 24+).
    const lease = await client.lock(resource, 'alice', 3);
    try {
      const first = (await client.status(resource)).lock;
      await sleep(4000); // longer than the TTL: only renewals keep it
      const later = (await client.status(resource)).lock;
      assert.equal(lease.loss, null, String(lease.loss));
      lease.check();
      assert.equal(later.fencingToken, first.fencingToken);
      assert.ok(later.expiresAt > first.expiresAt);
    } finally {
      await lease[Symbol.asyncDispose]();
    }
    assert.equal((await client.status(resource)).outcome, 'not_found');
  });

  it('signals a lease released elsewhere as lost', async () => {
    const resource = fresh('lost');
    const lease = await client.lock(resource, 'alice', 3);
    const seen = [];
    lease.onLost((loss) => seen.push(loss));
    await client.release(resource, 'alice', { fencingToken: lease.fencingToken });
    const loss = await Promise.race([lease.lost, sleep(5000).then(() => null)]);
    assert.ok(loss instanceof LeaseLostError, 'the next renewal finds the lease gone');
    assert.equal(loss.reason, 'not_found');
    assert.throws(() => lease.check(), LeaseLostError);
    assert.deepEqual(seen, [loss]);
    await lease.release(); // a lost lease is not released again
  });

  it('lock() throws when held elsewhere; withLock() answers null', async () => {
    const resource = fresh('busy');
    await client.withLock(resource, 'alice', 30, 0, async () => {
      await assert.rejects(client.lock(resource, 'bob', 30, 0.3), NotAcquiredError);
      assert.equal(await client.withLock(resource, 'bob', 30, 0, async () => 'ran'), null);
    });
  });

  it('never lets two holders overlap', async () => {
    const resource = fresh('mutex');
    let inside = 0;
    let overlaps = 0;
    const work = async (owner) => {
      for (let i = 0; i < 3; i++) {
        await client.withLock(resource, owner, 10, 20, async () => {
          inside += 1;
          if (inside > 1) overlaps += 1;
          await sleep(50);
          inside -= 1;
        });
      }
    };
    await Promise.all(['a', 'b', 'c'].map(work));
    assert.equal(overlaps, 0);
  });
});

describe('reply matching', () => {
  const options = settings();

  async function answerByHand(reply) {
    // A status sent where no worker reads commands; `reply` is written to the reply partition meanwhile.
    const quiet = await LockClient.connect({ ...options, commandTopic: deadLetterTopic() });
    const kafka = new Kafka({ brokers: options.brokers, logLevel: logLevel.NOTHING });
    const producer = kafka.producer();
    await producer.connect();
    try {
      const sent = quiet.send({ request_id: reply.request_id, type: 'status', resource: 'node-by-hand' })
        .then((r) => r, (e) => e);
      await sleep(1000);
      await producer.send({ topic: options.replyTopic, messages: [{ partition: quiet.replyPartition, key: reply.request_id, value: JSON.stringify(reply) }] });
      return await sent;
    } finally {
      await producer.disconnect();
      await quiet.close();
    }
  }

  it('refuses a forged reply for the request ID', async () => {
    const result = await answerByHand({
      request_id: crypto.randomUUID(), type: 'status', resource: 'someone-else', outcome: 'locked',
      lock: { resource: 'someone-else', owner: 'x', fencing_token: 1, acquired_at: '2026-01-01T00:00:00.000Z', expires_at: '2026-01-01T00:00:30.000Z' },
    });
    assert.ok(result instanceof ReplyMismatchError, String(result));
    assert.match(result.message, /resource someone-else/);
  });

  it('takes a reply that answers the command', async () => {
    const result = await answerByHand({ request_id: crypto.randomUUID(), type: 'status', resource: 'node-by-hand', outcome: 'not_found' });
    assert.equal(result.outcome, 'not_found');
  });

  it('cancels a timed-out acquire right after it', async () => {
    const resource = fresh('cancel');
    const quiet = await LockClient.connect({ ...options, commandTopic: deadLetterTopic(), requestTimeoutMs: 1000 });
    try {
      await assert.rejects(quiet.acquire(resource, ' alice ', 30), (e) => {
        assert.ok(e instanceof LockTimeoutError);
        assert.equal(e.cancelled, true);
        return true;
      });
    } finally {
      await quiet.close();
    }
    // What went out, in the partition's order: the acquire, then the release that cancels it.
    const sent = (await recordsKeyed(deadLetterTopic(), resource, 2)).map((value) => JSON.parse(value));
    assert.deepEqual(sent.map((command) => command.type), ['acquire', 'release']);
    assert.equal(sent[1].cancels, sent[0].request_id);
    assert.equal(sent[1].owner, ' alice ');
    assert.equal(sent[1].fencing_token, undefined);
  });

  it('lands a cancellation after an acquire whose acknowledgements were lost', async () => {
    // The broker writes the acquire's first two sends, but their responses are lost on the way back. KafkaJS's
    // idempotent producer rolled the partition's sequence number back after each, so the cancellation the
    // client publishes when it gives up took the acquire's number: the broker acknowledged it as a duplicate
    // and dropped it. Sent twice, a command is applied once: the cancellation must land, after the acquire.
    const resource = fresh('lost-ack');
    const produce = Broker.prototype.produce;
    let lose = 2;
    Broker.prototype.produce = async function responseLost(request) {
      const response = await produce.call(this, request);
      const values = request.topicData.flatMap((t) => t.partitions.flatMap((p) => p.messages.map((m) => String(m.value))));
      if (lose > 0 && values.some((v) => v.includes('"type":"acquire"') && v.includes(`"resource":"${resource}"`))) {
        lose -= 1;
        throw new KafkaJSRequestTimeoutError('the response was lost');
      }
      return response;
    };
    // KafkaJS sends again after about 1 s and 2 s more; the client gives up on the acquire after 2 s.
    const quiet = await LockClient.connect({
      ...options, commandTopic: deadLetterTopic(), requestTimeoutMs: 2000, kafka: { retry: { initialRetryTime: 1000 } },
    });
    try {
      await assert.rejects(quiet.acquire(resource, 'alice', 30), (e) => e instanceof LockTimeoutError && e.cancelled);
    } finally {
      Broker.prototype.produce = produce;
      await quiet.close();
    }
    const sent = (await recordsKeyed(deadLetterTopic(), resource, 4)).map((value) => JSON.parse(value));
    assert.equal(sent[0].type, 'acquire');
    const cancellation = sent.findIndex((command) => command.type === 'release');
    assert.ok(cancellation > 0, `the cancellation is in the log, after the acquire: ${sent.map((command) => command.type)}`);
    assert.equal(sent[cancellation].cancels, sent[0].request_id);
    assert.ok(sent.every((command, i) => i === cancellation || command.request_id === sent[0].request_id),
      'the other records are copies of the acquire, which the worker applies once');
  });

  /** The values of the first `count` records of `topic` keyed `key`, read from the beginning. */
  async function recordsKeyed(topic, key, count) {
    const kafka = new Kafka({ brokers: options.brokers, logLevel: logLevel.NOTHING });
    const consumer = kafka.consumer({ groupId: `node-reader-${crypto.randomUUID()}` });
    await consumer.connect();
    const found = [];
    try {
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          if (message.key && message.key.toString('utf8') === key) found.push(message.value.toString('utf8'));
        },
      });
      const deadline = Date.now() + 20000;
      while (found.length < count && Date.now() < deadline) await sleep(100);
      return found;
    } finally {
      await consumer.disconnect();
    }
  }

  it('refuses another command under a request ID still waiting, before publishing', async () => {
    const client = await LockClient.connect({ ...options, commandTopic: deadLetterTopic(), requestTimeoutMs: 3000 });
    try {
      const id = crypto.randomUUID();
      const first = client.send({ request_id: id, type: 'status', resource: 'node-in-use' }).then((r) => r, (e) => e);
      await assert.rejects(client.send({ request_id: id, type: 'acquire', resource: 'node-in-use', owner: 'a', ttl_seconds: 30 }),
        RequestIdInUseError);
      await first;
    } finally {
      await client.close();
    }
  });
});
