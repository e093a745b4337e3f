'use strict';
const crypto = require('node:crypto');
const { LeaseLostError, LockClientError, LockTimeoutError } = require('./errors');

/**
 * The earliest local time (`now()`) at which the lease an `acquired` reply grants can have begun. The
 * worker started it at the log time of the record that granted it; that record came no earlier than the
 * acquire's own record plus `waitedMs` (the log time it waited in the queue, absent when granted at once),
 * and the acquire's record no earlier than its first send: so no earlier than `firstSent + waitedMs`, on a
 * clock that runs at the log's rate. Never later than the reply's receipt, `received`: a log clock running
 * fast cannot date it later.
 */
function validFrom(firstSent, reply, received) {
  return Math.min(firstSent + (reply.waitedMs || 0), received);
}

/**
 * A lease that renews itself every `ttl × renewFraction` with its fencing token. `validFrom` is the local
 * time (`now()`, monotonic) the lease began no earlier than (see `validFrom()`); it is valid locally until
 * `validFrom + ttl × (1 − safetyMargin)`, and each renewal answered `renewed` moves that end to its own send
 * plus `ttl × (1 − safetyMargin)` (the worker's "now" for it was no earlier than the send). So the local end
 * never runs past the worker's, as long as the local clock and the log's do not drift apart by more than the
 * margin over a TTL.
 *
 * `lost` (a Promise) resolves with a LeaseLostError, and `onLost` callbacks run, when a renewal is answered
 * `not_found` or `forbidden`, or at the local end (`expired`): a timer of its own says so then, even while a
 * renewal hangs or the broker cannot be reached. `release()` (or `await using`) stops the renewals and
 * releases it with its token; a lost lease is not released.
 */
class HeldLease {
  constructor(client, lock, owner, ttl, validFromMs, { renewFraction = 1 / 3, safetyMargin = 0.1 } = {}) {
    this.lock = lock;
    this.resource = lock.resource;
    this.fencingToken = lock.fencingToken;
    this.owner = owner;
    this.ttl = ttl;
    this.loss = null;
    this._client = client;
    this._renewEveryMs = ttl * 1000 * renewFraction;
    this._validForMs = ttl * 1000 * (1 - safetyMargin);
    this._validFrom = validFromMs;
    this._deadline = validFromMs + this._validForMs;
    this._callbacks = [];
    this._stopped = false;
    this._timer = null;
    this._expiry = null;
    this._renewing = Promise.resolve();
    this._released = null;
    this.lost = new Promise((resolve) => { this._resolveLost = resolve; });
  }

  start() {
    this._armExpiry();
    // Counted from the lease's start, like the validity: a slow first reply renews sooner.
    this._schedule(this._validFrom + this._renewEveryMs);
    return this;
  }

  /** The local end (`now()`): lost then unless a renewal moved it. */
  get validUntil() {
    return this._deadline;
  }

  /** Calls `callback(LeaseLostError)` when the lease is lost (at once, if it is already). */
  onLost(callback) {
    if (this.loss) callback(this.loss); else this._callbacks.push(callback);
  }

  /** Throws LeaseLostError when the lease is lost or past its local end: call it before each write. */
  check() {
    if (!this.loss && now() >= this._deadline) this._lose('expired');
    if (this.loss) throw this.loss;
  }

  /** Stops the renewals and releases the lease with its token, unless it was lost; once. */
  async release() {
    if (this._released) return this._released;
    this._released = this._release();
    return this._released;
  }

  async _release() {
    this._stopped = true;
    clearTimeout(this._timer);
    clearTimeout(this._expiry);
    await this._renewing;
    if (!this.loss && now() >= this._deadline) this._lose('expired');
    if (!this.loss) await this._client.release(this.resource, this.owner, { fencingToken: this.fencingToken });
  }

  async [Symbol.asyncDispose]() {
    await this.release();
  }

  /**
   * The loss at the local end, whatever the renewals are doing. A timer may fire a little early against
   * `now()` (it counts whole milliseconds on the event loop's clock): it looks again and waits the rest.
   */
  _armExpiry() {
    clearTimeout(this._expiry);
    if (this._stopped) return;
    this._expiry = setTimeout(() => {
      if (now() >= this._deadline) this._lose('expired'); else this._armExpiry();
    }, Math.max(0, Math.ceil(this._deadline - now())));
  }

  _schedule(at) {
    if (this._stopped) return;
    this._timer = setTimeout(() => { this._renewing = this._tick(at); }, Math.max(0, at - now()));
  }

  async _tick(due) {
    if (this._stopped) return;
    if (now() < due) { this._schedule(due); return; }
    const sent = now();
    let reply;
    try {
      reply = await this._client.renew(this.resource, this.owner, this.ttl,
        { fencingToken: this.fencingToken, requestId: crypto.randomUUID() });
    } catch (e) {
      if (!(e instanceof LockClientError)) throw e;
      // A timeout is tried again at once, anything else after a second, until the lease is lost.
      this._schedule(now() + (e instanceof LockTimeoutError ? 0 : Math.min(1000, this._renewEveryMs)));
      return;
    }
    if (this.loss) return; // answered after the loss: a loss is final
    if (reply.outcome === 'renewed') {
      this._deadline = Math.max(this._deadline, sent + this._validForMs);
      this._armExpiry();
      this._schedule(sent + this._renewEveryMs);
    } else {
      this._lose(reply.outcome);
    }
  }

  _lose(reason) {
    if (this.loss) return;
    this._stopped = true;
    clearTimeout(this._timer);
    clearTimeout(this._expiry);
    this.loss = new LeaseLostError(this.resource, this.fencingToken, reason);
    this._resolveLost(this.loss);
    for (const callback of this._callbacks.splice(0)) callback(this.loss);
  }
}

/** The clock leases are timed on: monotonic, in milliseconds. */
function now() {
  return performance.now();
}

module.exports = { HeldLease, validFrom, now };
