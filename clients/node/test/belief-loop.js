#!/usr/bin/env node
'use strict';
// A Node client of the belief fault run (lockstep-cli's ClientBeliefsIT, docs/reliability.md); the same
// loop as clients/python/tests/belief_loop.py, whose docstring says what it does and which environment
// variables set it. Not a test file of its own (node --test runs *.test.js).
const net = require('node:net');
const { LockClient } = require('..');

const env = process.env;
const name = env.BELIEF_CLIENT;
const owner = env.BELIEF_OWNER;
const resource = env.BELIEF_RESOURCE;
const ttl = Number(env.BELIEF_TTL);
const waitSeconds = Number(env.BELIEF_WAIT);
const limit = Number(env.BELIEF_LIMIT) || undefined;
const [minHold, maxHold] = env.BELIEF_HOLD_MS.split(',').map(Number);
const maxIdle = Number(env.BELIEF_IDLE_MS);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const between = (min, max) => min + Math.random() * (max - min);

/** The test's recorder: lines out, an answer to each write, in order. */
class Recorder {
  static connect(port) {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(new Recorder(socket)));
      socket.once('error', reject);
    });
  }

  constructor(socket) {
    this._socket = socket;
    this._answers = [];
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      buffered += chunk;
      for (let end; (end = buffered.indexOf('\n')) >= 0; buffered = buffered.slice(end + 1)) {
        this._answers.shift()(buffered.slice(0, end));
      }
    });
  }

  send(line) {
    this._socket.write(`${line}\n`);
  }

  write(token) {
    return new Promise((resolve) => {
      this._answers.push(resolve);
      this.send(`write ${name} ${resource} ${token}`);
    });
  }

  /** Ends the connection once every line is out. */
  end() {
    return new Promise((resolve) => this._socket.end(resolve));
  }
}

async function hold(recorder, lease) {
  const handed = Date.now();
  let lost = null;
  lease.onLost((loss) => { lost = lost || { at: Date.now(), reason: loss.reason }; });
  try {
    lease.check();
  } catch (e) {
    // Past its local deadline already (granted while this process was frozen, say): not acted on.
    recorder.send(`stale ${name} ${resource} ${lease.fencingToken}`);
    return;
  }
  recorder.send(`holding ${name} ${resource} ${lease.fencingToken}`);
  const until = Date.now() + between(minHold, maxHold);
  while (!state.stopping && !lost && Date.now() < until) {
    if (!limit) await recorder.write(lease.fencingToken);
    await Promise.race([lease.lost, sleep(Math.min(250, until - Date.now()))]);
  }
  const end = lost ? { at: lost.at, why: `lost (${lost.reason})` } : { at: Date.now(), why: 'released' };
  await lease.release(); // sends nothing for a lease lost
  recorder.send(`belief ${JSON.stringify({
    client: name, resource, owner, token: lease.fencingToken, limit: limit || 0, from_ms: handed, until_ms: end.at,
    end: end.why,
  })}`);
}

const state = { stopping: false };

async function main() {
  const recorder = await Recorder.connect(Number(env.BELIEF_RECORDER));
  const client = await LockClient.connect({
    brokers: [env.LOCKSTEP_BOOTSTRAP], commandTopic: env.LOCKSTEP_COMMAND_TOPIC, replyTopic: env.LOCKSTEP_REPLY_TOPIC,
  });
  // Standard input closing asks it to stop: a lease held is released at once, a wait goes on until it
  // is granted (and released) or over.
  process.stdin.on('end', () => { state.stopping = true; });
  process.stdin.resume();
  while (!state.stopping) {
    recorder.send(`waiting ${name} ${resource}`);
    const lease = await client.tryAcquire(resource, owner, ttl, waitSeconds, limit ? { limit } : {});
    if (lease) await hold(recorder, lease);
    await sleep(between(0, maxIdle));
  }
  await recorder.end();
  await client.close();
  process.exit(0);
}

main().catch((e) => { console.error(e); process.exit(1); });
