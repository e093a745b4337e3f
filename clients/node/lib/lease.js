'use strict';
const crypto = require('node:crypto');
const { LeaseLostError, LockClientError, LockTimeoutError } = require('./errors');

/**
 * A lease that renews itself every `ttl × renewFraction` with its fencing token. `lost` (a Promise)
 * resolves with a LeaseLostError, and `onLost` callbacks run, when a renewal is answered `not_found` or
 * `forbidden`, or when no renewal succeeded within `ttl × (1 − safetyMargin)` after the last successful
 * one was first sent (`expired`, on the local monotonic clock). `release()` (or `await using`) stops the
 * renewals and releases it with its token; a lost lease is not released.
 */
class HeldLease {
  constructor(client, lock, owner, ttl, sentAt, { renewFraction = 1 / 3, safetyMargin = 0.1 } = {}) {
    this.lock = lock;
    this.resource = lock.resource;
    this.fencingToken = lock.fencingToken;
    this.owner = owner;
    this.ttl = ttl;
    this.loss = null;
    this._client = client;
    this._renewEveryMs = ttl * 1000 * renewFraction;
    this._validForMs = ttl * 1000 * (1 - safetyMargin);
    this._sentAt = sentAt;
    this._deadline = sentAt + this._validForMs;
    this._callbacks = [];
    this._stopped = false;
    this._timer = null;
    this._renewing = Promise.resolve();
    this.lost = new Promise((resolve) => { this._resolveLost = resolve; });
  }

  start() {
    // Counted from the grant's first send, like the validity: a slow first reply renews sooner.
    this._schedule(this._sentAt + this._renewEveryMs);
    return this;
  }

  /** Calls `callback(LeaseLostError)` when the lease is lost (at once, if it is already). */
  onLost(callback) {
    if (this.loss) callback(this.loss); else this._callbacks.push(callback);
  }

  /** Throws LeaseLostError when the lease is lost or past its local deadline: call it before each write. */
  check() {
    if (!this.loss && now() >= this._deadline) this._lose('expired');
    if (this.loss) throw this.loss;
  }

  /** Stops the renewals and releases the lease with its token, unless it was lost. */
  async release() {
    this._stopped = true;
    clearTimeout(this._timer);
    await this._renewing;
    if (!this.loss && now() >= this._deadline) this._lose('expired');
    if (!this.loss) await this._client.release(this.resource, this.owner, { fencingToken: this.fencingToken });
  }

  async [Symbol.asyncDispose]() {
    await this.release();
  }

  _schedule(at) {
    if (this._stopped) return;
    const delay = Math.max(0, Math.min(at, this._deadline) - now());
    this._timer = setTimeout(() => { this._renewing = this._tick(at); }, delay);
  }

  async _tick(due) {
    if (this._stopped) return;
    if (now() >= this._deadline) { this._lose('expired'); return; }
    if (now() < due) { this._schedule(due); return; }
    const sent = now();
    let reply;
    try {
      reply = await this._client.renew(this.resource, this.owner, this.ttl,
        { fencingToken: this.fencingToken, requestId: crypto.randomUUID() });
    } catch (e) {
      if (!(e instanceof LockClientError)) throw e;
      // A timeout is tried again at once, anything else after a second, until the deadline says otherwise.
      this._schedule(now() + (e instanceof LockTimeoutError ? 0 : Math.min(1000, this._renewEveryMs)));
      return;
    }
    if (reply.outcome === 'renewed') {
      this._deadline = sent + this._validForMs;
      this._schedule(sent + this._renewEveryMs);
    } else {
      this._lose(reply.outcome);
    }
  }

  _lose(reason) {
    if (this.loss) return;
    this._stopped = true;
    clearTimeout(this._timer);
    this.loss = new LeaseLostError(this.resource, this.fencingToken, reason);
    this._resolveLost(this.loss);
    for (const callback of this._callbacks.splice(0)) callback(this.loss);
  }
}

function now() {
  return performance.now();
}

module.exports = { HeldLease, now };
