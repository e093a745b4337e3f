'use strict';
// HeldLease's timing without a broker: how a grant is dated, when loss is signalled. A stand-in client
// answers renewals as a test tells it to (at once, never, or late).
const { it } = require('node:test');
const assert = require('node:assert/strict');
const {
  HeldLease, LockClient, LeaseLostError, NotAcquiredError, validFrom, parseReply,
} = require('..');

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

/** A client not started whose acquires are answered, in turn, by `[delayMs, reply]`; `sent`, the commands sent. */
function answering(answers) {
  const client = new LockClient({ brokers: ['127.0.0.1:1'] });
  const sent = [];
  client._answer = async (command) => {
    sent.push(command);
    const [delay, answer] = answers[Math.min(sent.length, answers.length) - 1];
    await sleep(delay);
    return answer;
  };
  client.renew = async () => reply('renewed', { type: 'renew' });
  client.release = async () => reply('released', { type: 'release', lock: null });
  const published = [];
  client._acknowledged = async () => {};
  client._publish = async (command) => { published.push({ type: command.type, cancels: command.cancels }); };
  return { client, sent, published };
}

it('acquires again, not handing over, a grant whose reply came after its validity', async () => {
  // The first reply comes 1.1 s after the send, past the lease's local validity (0.9 s of a 1 s TTL, granted
  // at once): the worker may have ended that lease. The acquire is sent again with a new request ID, and the
  // lease that answers it is the one handed over.
  const { client, sent } = answering([[1100, reply('acquired')], [0, reply('acquired', {
    lock: { resource: 'res', owner: 'alice', fencing_token: 8, acquired_at: 'x', expires_at: 'y' },
  })]]);
  const lease = await client.tryAcquire('res', 'alice', 1, 5);
  try {
    assert.ok(lease);
    assert.equal(lease.fencingToken, 8, 'the lease of the second acquire');
    await sleep(200);
    assert.equal(lease.loss, null, String(lease.loss));
    lease.check();
    assert.equal(sent.length, 2);
    assert.notEqual(sent[1].request_id, sent[0].request_id, 'a new request, dated by its own send');
    assert.ok(sent[1].wait_ms < sent[0].wait_ms, 'waiting what is left of the wait');
  } finally {
    await lease.release();
  }
});

it('is not acquired when a grant\'s reply came after its validity and the wait', async () => {
  const late = answering([[1100, reply('acquired')]]);
  assert.equal(await late.client.tryAcquire('res', 'alice', 1, 0.5), null);
  assert.equal(late.sent.length, 1, 'no time left to acquire again');
  assert.deepEqual(late.published, [{ type: 'release', cancels: late.sent[0].request_id }],
    'cancelled, so its lease does not block the lock');
  await assert.rejects(answering([[1100, reply('acquired')]]).client.lock('res', 'alice', 1, 0.5), NotAcquiredError);
  assert.equal(await answering([[1100, reply('acquired')]]).client.withLock('res', 'alice', 1, 0.5,
    () => assert.fail('not handed over')), null);
});

it('cancels both when it gives up after a late grant was acquired again', async () => {
  // The second attempt extends the first's lease (same owner, same token): cancelling only the second
  // releases nothing, so the first, whose grant came too late, is cancelled too.
  const late = answering([[1100, reply('acquired')], [1100, reply('acquired')]]);
  assert.equal(await late.client.tryAcquire('res', 'alice', 1, 1.5), null);
  assert.equal(late.sent.length, 2);
  assert.deepEqual(late.published.map((p) => p.cancels).sort(), late.sent.map((c) => c.request_id).sort());
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
