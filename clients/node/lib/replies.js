'use strict';
// Replies as the worker writes them, and whether one answers the command that was sent.

const POSSIBLE = {
  acquire: ['acquired', 'not_acquired'],
  renew: ['renewed', 'forbidden', 'not_found'],
  release: ['released', 'forbidden', 'not_found'],
  status: ['locked', 'not_found'],
};

/** The reply in `value` (a Buffer), or null when it is not a well-formed lockstep reply. */
function parseReply(value) {
  let body;
  try {
    body = JSON.parse(value.toString('utf8'));
  } catch (e) {
    return null;
  }
  if (body === null || typeof body !== 'object' || typeof body.request_id !== 'string' || typeof body.outcome !== 'string') {
    return null;
  }
  let lock = null;
  if (body.lock != null) {
    const l = body.lock;
    if (typeof l.resource !== 'string' || typeof l.owner !== 'string' || !Number.isInteger(l.fencing_token)) {
      return null;
    }
    lock = {
      resource: l.resource, owner: l.owner, fencingToken: l.fencing_token, acquiredAt: l.acquired_at, expiresAt: l.expires_at,
      permit: Number.isInteger(l.permit) ? l.permit : 0, mode: l.mode === 'shared' ? 'shared' : 'exclusive',
      limit: Number.isInteger(l.limit) ? l.limit : 1, value: typeof l.value === 'string' ? l.value : null,
    };
  }
  if (body.outcome === 'moved' && !(Number.isInteger(body.partition) && Number.isInteger(body.partitions)
      && body.partition >= 0 && body.partition < body.partitions)) {
    return null;
  }
  return {
    requestId: body.request_id, type: body.type ?? null, resource: body.resource ?? null, outcome: body.outcome,
    lock, retryAfterMs: body.retry_after_ms ?? null, reason: body.reason ?? null, problem: body.problem ?? null,
    waiters: Number.isInteger(body.waiters) ? body.waiters : 0,
    position: Number.isInteger(body.position) ? body.position : null,
    waitedMs: Number.isInteger(body.waited_ms) && body.waited_ms >= 0 ? body.waited_ms : null,
    // On `moved`: the partition to send the same command (same request ID) to, and the count it routes by.
    partition: body.outcome === 'moved' ? body.partition : null,
    partitions: body.outcome === 'moved' ? body.partitions : null,
    raw: value.toString('utf8'),
  };
}

/**
 * Why `reply` does not answer `command` (as sent); null when it does. A request ID is the caller's to
 * choose, so a reply carrying it must also name the command's type and resource, have an outcome that
 * type can have, and a lease in it must be of that resource, of the command's owner as the worker stores
 * it (trimmed) and of the token sent.
 */
function mismatch(command, reply) {
  const wrong = [];
  // A moved reply names the command it sends on, and no lease.
  const invalid = reply.outcome === 'invalid' || reply.outcome === 'moved';
  if (reply.type !== command.type && !(invalid && reply.type === null)) wrong.push(`type ${reply.type}`);
  if (reply.resource !== command.resource && !(invalid && reply.resource === null)) wrong.push(`resource ${reply.resource}`);
  if (!invalid && !(POSSIBLE[command.type] || []).includes(reply.outcome)) wrong.push(`outcome ${reply.outcome}`);
  const lease = reply.lock;
  if (lease) {
    if (lease.resource !== command.resource) wrong.push(`lease of ${lease.resource}`);
    if (command.type !== 'status' && (typeof command.owner !== 'string' || lease.owner !== command.owner.trim())) {
      wrong.push(`lease owner ${lease.owner}`);
    }
    if (command.fencing_token !== undefined && lease.fencingToken !== command.fencing_token) {
      wrong.push(`lease token ${lease.fencingToken}`);
    }
    if (command.type === 'acquire') {
      // A caller that asked for the whole resource never takes a shared permit for it.
      const [mode, limit] = askedShare(command);
      if (lease.mode !== mode || lease.limit !== limit) wrong.push(`a lease ${lease.mode} of ${lease.limit}`);
      // A leader that asked to publish its address never takes a grant publishing another's.
      if (lease.value !== (command.value ?? null)) wrong.push(`a lease publishing ${lease.value ?? 'no value'}`);
    }
  }
  return wrong.length === 0 ? null
    : `reply to request ${reply.requestId} names ${wrong.join(', ')}, but the request was ${command.type} of ${command.resource}`;
}

/**
 * [mode, limit] an acquire asks for, as the worker reads it: a limit alone, or mode shared, is shared (of 64
 * unless the limit says); neither is the whole resource.
 */
function askedShare(command) {
  if (command.mode === 'exclusive' || (command.mode === undefined && command.limit === undefined)) return ['exclusive', 1];
  return ['shared', command.limit !== undefined ? command.limit : 64];
}

module.exports = { parseReply, mismatch };
