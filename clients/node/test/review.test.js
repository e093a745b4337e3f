'use strict';
// Review of issue 42: a Node client case found by reading the change. It needs no broker, and fails on
// the code as reviewed.
const { it } = require('node:test');
const assert = require('node:assert/strict');
const { LockClient, parseReply } = require('..');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function reply(outcome, fields = {}) {
  return parseReply(Buffer.from(JSON.stringify({
    request_id: 'r1', type: 'acquire', resource: 'res', outcome,
    lock: { resource: 'res', owner: 'alice', fencing_token: 7, acquired_at: 'x', expires_at: 'y' }, ...fields,
  })));
}

// The Java client (98f8cd7) no longer hands over a lease whose reply came after its local validity ("the
// user has acted meanwhile", reliability.md); Node still does (withLock runs its action on it at once), and
// nothing cancels or releases the lease the worker granted: it blocks the lock for its TTL.
it('neither hands over nor leaves held a grant whose reply came after its local end', async () => {
  const client = new LockClient({ brokers: ['127.0.0.1:1'] });
  const sent = [];
  client._answer = async (command) => {
    if (command.type !== 'acquire') return reply('not_found', { type: command.type, lock: null });
    await sleep(1000); // TTL 1 s: the local validity ends 0.9 s after the first send
    return reply('acquired');
  };
  client.release = async (resource, owner, { fencingToken } = {}) => { sent.push(['release', fencingToken]); };
  client._publish = async (command) => { sent.push([command.type, command.cancels]); };
  const lease = await client.tryAcquire('res', 'alice', 1, 0);
  const handedAt = performance.now();
  if (lease) {
    assert.ok(lease.validUntil > handedAt, `handed over a lease already past its local end (${lease.validUntil} <= ${handedAt})`);
  }
  await sleep(200);
  assert.ok(sent.some(([type]) => type === 'release'),
    `the lease it was granted is cancelled or released, not left to block the lock: ${JSON.stringify(sent)}`);
});
