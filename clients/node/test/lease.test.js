'use strict';
// HeldLease's timing without a broker: how a grant is dated, when loss is signalled. A stand-in client
// answers renewals as a test tells it to (at once, never, or late).
const { it } = require('node:test');
const assert = require('node:assert/strict');
const { HeldLease, LockClient, LeaseLostError, validFrom, parseReply } = require('..');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => performance.now();

function reply(outcome, fields = {}) {
  return parseReply(Buffer.from(JSON.stringify({
    request_id: 'r1', type: 'acquire', resource: 'res', outcome,
    lock: { resource: 'res', owner: 'alice', fencing_token: 7, acquired_at: 'x', expires_at: 'y' }, ...fields,
  })));
}

/** The calls a HeldLease makes: renewals answered by `answer()`, releases counted. */
function standIn(answer) {
  return {
    renewals: [],
    released: [],
    renew() { this.renewals.push(now()); return answer(); },
    async release(resource, owner, { fencingToken }) { this.released.push(fencingToken); },
  };
}

/** A renewal that hangs until `gate` resolves, then is answered `renewed`. */
const renewedWhen = (gate) => () => gate.then(() => reply('renewed', { type: 'renew' }));

it('dates a grant after a wait longer than its TTL from the first send plus the wait', async () => {
  const client = new LockClient({ brokers: ['127.0.0.1:1'] });
  client._answer = async () => { await sleep(1200); return reply('acquired', { waited_ms: 1150 }); };
  client.renew = async () => reply('renewed', { type: 'renew' });
  client.release = async () => reply('released', { type: 'release', lock: null });
  const before = now();
  const lease = await client.tryAcquire('res', 'alice', 1, 5);
  try {
    await sleep(200);
    assert.equal(lease.loss, null, String(lease.loss));
    lease.check();
    assert.ok(lease.validUntil >= before + 1150 + 900, 'from the first send plus the wait');
  } finally {
    await lease.release();
  }
});

it('never dates a grant later than its reply came, and a grant at once from the first send', () => {
  assert.equal(validFrom(10000, reply('acquired', { waited_ms: 60000 }), 15000), 15000);
  assert.equal(validFrom(10000, reply('acquired', { waited_ms: 2500 }), 15000), 12500);
  assert.equal(validFrom(10000, reply('acquired'), 15000), 10000);
  assert.equal(reply('acquired', { waited_ms: -5 }).waitedMs, null);
  assert.equal(reply('acquired', { waited_ms: '12' }).waitedMs, null);
});

it('signals the loss at the local end while a renewal hangs', async () => {
  let open;
  const client = standIn(renewedWhen(new Promise((resolve) => { open = resolve; })));
  const start = now();
  const lease = new HeldLease(client, reply('acquired').lock, 'alice', 1.5, start).start();
  let signalled = null;
  lease.onLost(() => { signalled = now(); });
  try {
    const loss = await Promise.race([lease.lost, sleep(3000).then(() => null)]);
    assert.ok(loss instanceof LeaseLostError, 'lost at its local end, 1.35 s after it began');
    assert.equal(loss.reason, 'expired');
    assert.equal(client.renewals.length, 1, 'the renewal still hangs');
    assert.ok(signalled >= start + 1350, `${signalled - start}`);
    assert.ok(signalled < start + 1500, 'before the lease can end on the server');
    assert.throws(() => lease.check(), LeaseLostError);
  } finally {
    open();
    await lease.release();
  }
  assert.deepEqual(client.released, [], 'a lost lease is not released');
});

it('moves the end to a renewal\'s send plus the validity', async () => {
  const client = standIn(async () => reply('renewed', { type: 'renew' }));
  const lease = new HeldLease(client, reply('acquired').lock, 'alice', 1.2, now()).start();
  await sleep(2500);
  assert.equal(lease.loss, null, 'renewals keep it past twice its TTL');
  const last = client.renewals[client.renewals.length - 1];
  assert.ok(Math.abs(lease.validUntil - (last + 1080)) < 50, `${lease.validUntil - last}`);
  await lease.release();
  assert.deepEqual(client.released, [7]);
});

it('keeps a loss when a renewal is answered after the end', async () => {
  let open;
  const client = standIn(renewedWhen(new Promise((resolve) => { open = resolve; })));
  const lease = new HeldLease(client, reply('acquired').lock, 'alice', 1.0, now()).start();
  assert.ok(await Promise.race([lease.lost, sleep(2000).then(() => null)]));
  open();
  await sleep(100);
  assert.throws(() => lease.check(), LeaseLostError);
  await lease.release();
});
