'use strict';
// The shared protocol cases (clients/cases.json), the list the Java and Python clients pass too.
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const path = require('node:path');
const { LockClient, InvalidCommandError } = require('..');
const { settings } = require('./settings');

const { cases } = require(path.join(__dirname, '..', '..', 'cases.json'));

async function call(client, step, resource, token) {
  switch (step.call) {
    case 'try_acquire': {
      const lease = await client.tryAcquire(resource, step.owner, step.ttl, step.wait_ms / 1000);
      if (!lease) return { outcome: 'not_acquired', lock: null };
      await lease.release();
      return { outcome: 'acquired', lock: lease.lock };
    }
    case 'acquire': return client.acquire(resource, step.owner, step.ttl, { mode: step.mode, limit: step.limit, value: step.value });
    case 'renew': return client.renew(resource, step.owner, step.ttl, { fencingToken: token });
    case 'release': return client.release(resource, step.owner, { fencingToken: token });
    case 'status': return client.status(resource);
    default: throw new Error(`unknown call ${step.call}`);
  }
}

describe('protocol cases', () => {
  let client;
  before(async () => { client = await LockClient.connect(settings()); });
  after(async () => { await client.close(); });

  for (const testCase of cases) {
    it(testCase.name, async () => {
      const resource = `node-${testCase.name.replaceAll(' ', '-')}-${crypto.randomUUID().slice(0, 8)}`;
      const saved = {};
      for (const [index, step] of testCase.steps.entries()) {
        const where = `${testCase.name}, step ${index + 1} (${step.call})`;
        if (step.call === 'sleep') {
          await new Promise((resolve) => setTimeout(resolve, step.sleep_ms));
          continue;
        }
        let token = step.token;
        if (token === 'wrong') token = Math.max(...Object.values(saved)) + 1000;
        else if (token !== undefined) token = saved[token];
        if (step.expect === 'invalid') {
          await assert.rejects(call(client, step, resource, token), (e) => {
            assert.ok(e instanceof InvalidCommandError, where);
            assert.ok(e.fields.includes(step.field), `${where}: ${e.fields}`);
            return true;
          });
          continue;
        }
        const reply = await call(client, step, resource, token);
        assert.equal(reply.outcome, step.expect, where);
        if (step.save) saved[step.save] = reply.lock.fencingToken;
        if (step.same_token) assert.equal(reply.lock.fencingToken, saved[step.same_token], where);
        if (step.greater_token) assert.ok(reply.lock.fencingToken > saved[step.greater_token], where);
        if (step.lock_owner) assert.equal(reply.lock.owner, step.lock_owner, where);
        if (step.permit !== undefined) assert.equal(reply.lock.permit, step.permit, where);
        if (step.lock_value !== undefined) assert.equal(reply.lock.value, step.lock_value, where);
        if (step.retry_after) assert.ok(reply.retryAfterMs > 0, where);
      }
    });
  }
});
