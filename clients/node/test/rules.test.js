'use strict';
// The client's rules without I/O: the Java partitioner, and what makes a reply the answer.
const { it } = require('node:test');
const assert = require('node:assert/strict');
const { murmur2, partitionOf, parseReply, mismatch } = require('..');

// Computed with Kafka's own org.apache.kafka.common.utils.Utils.murmur2 (kafka-clients 4.4.0).
const JAVA = [
  ['', 275646681, 9], ['a', -1563381124, 4], ['ab', 316155434, 2], ['abc', 479470107, 3], ['abcd', -1323649548, 8],
  ['payment:42', -1773656867, 9], ['job-7', -60482315, 9], ['ü-é-€', 1761818237, 5],
  ['resource/with/a/longer/name-123456789', -1475217772, 4],
];

it('picks the partition the Java client picks', () => {
  for (const [key, hash, partition] of JAVA) {
    assert.equal(murmur2(Buffer.from(key, 'utf8')), hash, key);
    assert.equal(partitionOf(key, 12), partition, key);
  }
});

const command = { request_id: 'r1', type: 'renew', resource: 'a', owner: ' alice ', ttl_seconds: 30, fencing_token: 7 };
const reply = (fields) => parseReply(Buffer.from(JSON.stringify({
  request_id: 'r1', type: 'renew', resource: 'a', outcome: 'renewed',
  lock: { resource: 'a', owner: 'alice', fencing_token: 7, acquired_at: 'x', expires_at: 'y' }, ...fields,
})));

it('takes the answer, and names each wrong part of another', () => {
  assert.equal(mismatch(command, reply({})), null);
  assert.match(mismatch(command, reply({ type: 'acquire' })), /type acquire/);
  assert.match(mismatch(command, reply({ resource: 'b' })), /resource b/);
  assert.match(mismatch(command, reply({ outcome: 'locked' })), /outcome locked/);
  const why = mismatch(command, reply({ lock: { resource: 'a', owner: 'bob', fencing_token: 8, acquired_at: 'x', expires_at: 'y' } }));
  assert.match(why, /lease owner bob/);
  assert.match(why, /lease token 8/);
  assert.equal(mismatch(command, reply({ type: null, resource: null, outcome: 'invalid', lock: null, problem: { detail: 'x' } })), null);
});

it('reads no reply from a malformed record', () => {
  assert.equal(parseReply(Buffer.from('not json')), null);
  assert.equal(parseReply(Buffer.from('{"outcome":"locked"}')), null);
});

it('refuses a grant publishing another value than the acquire asked for', () => {
  const acquire = { request_id: 'r1', type: 'acquire', resource: 'a', owner: 'alice', ttl_seconds: 30, value: '10.0.0.7:8080' };
  const lock = { resource: 'a', owner: 'alice', fencing_token: 7, acquired_at: 'x', expires_at: 'y', value: '10.0.0.7:8080' };
  assert.equal(mismatch(acquire, reply({ type: 'acquire', outcome: 'acquired', lock })), null);
  assert.match(mismatch(acquire, reply({ type: 'acquire', outcome: 'acquired', lock: { ...lock, value: '10.0.0.9:1' } })),
    /a lease publishing 10.0.0.9:1/);
  const { value, ...plain } = lock;
  assert.match(mismatch(acquire, reply({ type: 'acquire', outcome: 'acquired', lock: plain })), /a lease publishing no value/);
  assert.equal(value, '10.0.0.7:8080');
});

it('refuses a grant of another share than the acquire asked for', () => {
  const acquire = { request_id: 'r1', type: 'acquire', resource: 'a', owner: 'alice', ttl_seconds: 30 };
  const shared = { resource: 'a', owner: 'alice', fencing_token: 7, acquired_at: 'x', expires_at: 'y', mode: 'shared', limit: 4, permit: 1 };
  const granted = reply({ type: 'acquire', outcome: 'acquired', lock: shared });
  assert.equal(granted.lock.permit, 1);
  assert.match(mismatch(acquire, granted), /a lease shared of 4/);
  assert.equal(mismatch({ ...acquire, limit: 4 }, granted), null);
  assert.match(mismatch({ ...acquire, limit: 5 }, granted), /a lease shared of 4/);
  assert.equal(mismatch({ ...acquire, mode: 'shared' }, reply({ type: 'acquire', outcome: 'acquired', lock: { ...shared, limit: 64 } })), null);
});
