'use strict';
// The shared protocol cases (clients/cases.json), the list the Java and Python clients pass too.
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const path = require('node:path');
const { LockClient, InvalidCommandError } = require('..');
const { settings, brokerLink } = require('./settings');

const { cases } = require(path.join(__dirname, '..', '..', 'cases.json'));

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A case's state: tokens saved, commands sent, leases held, acquires in flight, ends read. */
class Case {
  constructor(clients, name) {
    this.clients = clients;
    this.name = name;
    this.resource = `node-${name.replaceAll(' ', '-')}-${crypto.randomUUID().slice(0, 8)}`;
    this.saved = {};
    this.sent = {};
    this.held = {};
    this.losses = {};
    this.running = {};
    this.ends = {};
    this.linkTouched = false;
  }

  async run(steps, prefix = '') {
    for (const [index, step] of steps.entries()) {
      const where = `${this.name}, step ${prefix}${index + 1} (${step.call})`;
      const deadline = Date.now() + (step.poll_ms || 0);
      for (;;) {
        try {
          await this.step(step, where);
          break;
        } catch (e) {
          if (step.poll_ms === undefined || !(e instanceof assert.AssertionError) || Date.now() >= deadline) throw e;
          await sleep(100);
        }
      }
    }
  }

  async close() {
    if (this.linkTouched) await link('heal'); // the next case finds the link open, whatever this one left
    await Promise.all(Object.values(this.held).map((lease) => lease.release()));
  }

  async step(step, where) {
    const client = await this.clients.get(step.client);
    switch (step.call) {
      case 'sleep': await sleep(step.sleep_ms); return;
      case 'link': this.linkTouched = true; await link(step.action); return;
      case 'rejoin': await rejoin(client, () => this.run(step.during, `${where}.`)); return;
      case 'check': {
        const lease = this.held[step.held];
        assert.equal(lease.loss ? 'lost' : 'live', step.expect, `${where}: ${lease.loss}`);
        if (step.expect === 'live') lease.check();
        return;
      }
      case 'await_loss': {
        const lease = this.held[step.held];
        const loss = await Promise.race([lease.lost, sleep(step.within_ms).then(() => null)]);
        assert.ok(loss, `${where}: not lost in time`);
        assert.equal(loss.reason, step.reason, where);
        if (step.before) {
          assert.ok(this.losses[step.held] < this.ends[step.before], `${where}: the loss came after the lease's end on the server`);
        }
        return;
      }
      case 'await': {
        const result = await this.running[step.async];
        delete this.running[step.async];
        this.check(step, where, result);
        return;
      }
      default:
        if (step.async) {
          const running = this.call(client, step);
          running.catch(() => {}); // awaited by its await step
          this.running[step.async] = running;
        } else {
          this.check(step, where, await this.call(client, step));
        }
    }
  }

  /** The step's reply, or { outcome: 'invalid', fields }. */
  async call(client, step) {
    try {
      return await callClient(this, client, step);
    } catch (e) {
      if (!(e instanceof InvalidCommandError)) throw e;
      return { outcome: 'invalid', fields: e.fields };
    }
  }

  check(step, where, reply) {
    assert.equal(reply.outcome, step.expect, where);
    if (reply.outcome === 'invalid') {
      assert.ok(reply.fields.includes(step.field), `${where}: ${reply.fields}`);
      return;
    }
    if (step.save) this.saved[step.save] = reply.lock.fencingToken;
    if (step.same_token) assert.equal(reply.lock.fencingToken, this.saved[step.same_token], where);
    if (step.greater_token) assert.ok(reply.lock.fencingToken > this.saved[step.greater_token], where);
    if (step.lock_owner) assert.equal(reply.lock.owner, step.lock_owner, where);
    if (step.permit !== undefined) assert.equal(reply.lock.permit, step.permit, where);
    if (step.lock_value !== undefined) assert.equal(reply.lock.value, step.lock_value, where);
    if (step.retry_after) assert.ok(reply.retryAfterMs > 0, where);
    if (step.position !== undefined) assert.equal(reply.position, step.position, where);
    if (step.save_end) this.ends[step.save_end] = Date.parse(reply.lock.expiresAt);
  }
}

async function callClient(testCase, client, step) {
  const { resource, saved } = testCase;
  let token = step.token;
  if (token === 'wrong') token = Math.max(...Object.values(saved)) + 1000;
  else if (token !== undefined) token = saved[token];
  switch (step.call) {
    case 'try_acquire': {
      const lease = await client.tryAcquire(resource, step.owner, step.ttl, step.wait_ms / 1000);
      if (!lease) return { outcome: 'not_acquired', lock: null };
      await lease.release();
      return { outcome: 'acquired', lock: lease.lock };
    }
    case 'hold': {
      const lease = await client.tryAcquire(resource, step.owner, step.ttl, (step.wait_ms || 0) / 1000);
      if (!lease) return { outcome: 'not_acquired', lock: null };
      testCase.held[step.held] = lease;
      lease.onLost(() => { testCase.losses[step.held] ??= Date.now(); });
      if (step.release_after_ms !== undefined) setTimeout(() => lease.release().catch(() => {}), step.release_after_ms);
      return { outcome: 'acquired', lock: lease.lock };
    }
    case 'acquire': {
      const requestId = crypto.randomUUID();
      if (step.sent) testCase.sent[step.sent] = { request_id: requestId, resource, owner: step.owner };
      return client.acquire(resource, step.owner, step.ttl, {
        requestId, waitSeconds: step.wait_ms !== undefined ? step.wait_ms / 1000 : undefined, mode: step.mode, limit: step.limit, value: step.value,
      });
    }
    case 'cancel': return client.cancel(testCase.sent[step.cancels]);
    case 'renew': return client.renew(resource, step.owner, step.ttl, { fencingToken: token });
    case 'release': return client.release(resource, step.owner, { fencingToken: token });
    case 'status': return client.status(resource, { owner: step.owner });
    default: throw new Error(`unknown call ${step.call}`);
  }
}

/** Does `action` (cut, blackhole, heal) to the broker link. */
async function link(action) {
  const response = await fetch(`${brokerLink().control}/${action}`, { method: 'POST' });
  if (!response.ok) throw new Error(`POST /${action} to the broker link: ${response.status}`);
}

/**
 * Runs `during` while the client's reply consumer is out of its group: it leaves it and joins it again, as
 * KafkaJS restarts a consumer after a crash (a rebalance rejoins the same way), and must read on from where it
 * was, the replies written meanwhile included.
 */
async function rejoin(client, during) {
  const consumer = client._consumer;
  await consumer.stop();
  try {
    await during();
  } finally {
    const joined = new Promise((resolve) => {
      const stop = consumer.on(consumer.events.GROUP_JOIN, () => { stop(); resolve(); });
    });
    await consumer.run({ autoCommit: false, eachMessage: async ({ message }) => client._read(message) });
    await joined;
  }
}

/** A case's clients by the name its steps give: the suite's own, `other` (a second instance), `proxied` (behind the broker link). */
class Clients {
  constructor(main) {
    this.clients = new Map([[undefined, main]]);
  }

  async get(name) {
    if (!this.clients.has(name)) {
      if (name !== 'other' && name !== 'proxied') throw new Error(`unknown client ${name}`);
      const options = settings();
      if (name === 'proxied') options.brokers = [brokerLink().bootstrap];
      this.clients.set(name, LockClient.connect(options));
    }
    return this.clients.get(name);
  }

  async close() {
    await Promise.all([...this.clients.values()].map(async (client) => (await client).close()));
  }
}

describe('protocol cases', () => {
  let clients;
  before(async () => { clients = new Clients(await LockClient.connect(settings())); });
  after(async () => { await clients.close(); });

  for (const testCase of cases) {
    it(testCase.name, async () => {
      const state = new Case(clients, testCase.name);
      try {
        await state.run(testCase.steps);
      } finally {
        await state.close();
      }
    });
  }
});
