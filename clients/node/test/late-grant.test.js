'use strict';
// A grant that came too late to act on: no broker needed.
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

// A lease whose reply came after its local validity is not to be acted on: not handed over, and, with no
// wait left to acquire it again, cancelled so it does not block the lock for its TTL.
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
