'use strict';
// Cancellations without a broker: a stand-in producer acknowledges records when a test says, and keeps
// them in the order the broker would have them.
const { it } = require('node:test');
const assert = require('node:assert/strict');
const { LockClient, LockTimeoutError } = require('..');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A client on a stand-in producer: `delay(record)` says when (ms) each record is written and acknowledged. */
function clientOn(delay, requestTimeoutMs) {
  const client = new LockClient({ brokers: ['127.0.0.1:1'], requestTimeoutMs });
  const log = [];
  client.replyPartition = 0;
  client._consumer = {}; // started, as far as send() asks; no reply ever comes
  client._producer = {
    async send({ messages }) {
      const record = JSON.parse(messages[0].value);
      const ms = delay(record);
      if (ms === Infinity) return new Promise(() => {});
      await sleep(ms);
      log.push(record);
      return [{ partition: 0, errorCode: 0 }];
    },
  };
  return { client, log };
}

it('publishes a cancellation only once the broker acknowledged its acquire', async () => {
  // The acquire is acknowledged after 600 ms, its reply never comes: the client gives up at 300 ms.
  const { client, log } = clientOn((record) => (record.type === 'acquire' ? 600 : 0), 300);
  await assert.rejects(client.acquire('res', 'alice', 30), (e) => e instanceof LockTimeoutError && e.cancelled);
  assert.deepEqual(log.map((record) => record.type), ['acquire', 'release'], 'the cancellation lands after the acquire');
  assert.equal(log[1].cancels, log[0].request_id);
});

it('gives a cancellation up with a clear error when the acquire is never acknowledged', async () => {
  const { client, log } = clientOn((record) => (record.type === 'acquire' ? Infinity : 0), 300);
  const acquire = { request_id: 'a1', type: 'acquire', resource: 'res', owner: 'alice', ttl_seconds: 30 };
  client.send(acquire).catch(() => {});
  const started = performance.now();
  await assert.rejects(client.cancel(acquire, { timeoutMs: 400 }), (e) => {
    assert.ok(e instanceof LockTimeoutError, String(e));
    assert.match(e.message, /not acknowledged acquire a1 .* so its cancellation, which must follow it, was not published/);
    return true;
  });
  assert.ok(performance.now() - started < 1000, 'within its timeout');
  assert.deepEqual(log, [], 'nothing published before the acquire');
});

it('publishes an acquire whose publication failed again before its cancellation', async () => {
  let failures = 2;
  const { client, log } = clientOn(() => 0, 300);
  const send = client._producer.send;
  client._producer.send = async function flaky(request) {
    if (JSON.parse(request.messages[0].value).type === 'acquire' && failures > 0) {
      failures -= 1;
      throw new Error('the broker went away');
    }
    return send.call(this, request);
  };
  const acquire = { request_id: 'a1', type: 'acquire', resource: 'res', owner: 'alice', ttl_seconds: 30 };
  client.send(acquire).catch(() => {});
  await assert.rejects(client.cancel(acquire, { timeoutMs: 2000 }), LockTimeoutError); // no reply ever comes
  assert.deepEqual(log.map((record) => record.type), ['acquire', 'release'], 'a copy the broker took, then the cancellation');
});
