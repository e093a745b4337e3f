// Types of lockstep's Node client.
import { KafkaConfig } from 'kafkajs';

export interface Lock {
  resource: string;
  owner: string;
  fencingToken: number;
  /** ISO-8601 UTC, as the worker wrote it */
  acquiredAt: string;
  expiresAt: string;
  /** which of the resource's permits it holds: 0 for a lock */
  permit: number;
  /** 'exclusive' (the whole resource) or 'shared' (one of `limit` permits) */
  mode: 'exclusive' | 'shared';
  limit: number;
  /** what the lease publishes (a leader's address), when its acquire gave one */
  value: string | null;
}

export type Outcome = 'acquired' | 'not_acquired' | 'renewed' | 'released' | 'locked' | 'not_found' | 'forbidden' | 'invalid' | 'moved';

export interface Reply {
  requestId: string;
  type: 'acquire' | 'renew' | 'release' | 'status' | null;
  resource: string | null;
  outcome: Outcome;
  lock: Lock | null;
  retryAfterMs: number | null;
  /** why an acquire that waited is not_acquired */
  reason: 'wait_expired' | 'queue_full' | 'cancelled' | null;
  /** on locked: how many acquires wait in the resource's queue */
  waiters: number;
  /** on locked, for a status naming an owner who waits: its place in the queue, 1 = next */
  position: number | null;
  /** on acquired after a wait in the queue: log time from the acquire's own record to the grant, which dates the lease */
  waitedMs: number | null;
  /** on moved (the client sends the command on by itself): the partition to send it to */
  partition: number | null;
  /** on moved: the command topic's partition count as that partition routes */
  partitions: number | null;
  problem: Problem | null;
  /** the reply's JSON as the worker wrote it */
  raw: string;
}

export interface Problem {
  type: string;
  title: string;
  detail: string;
  errors: { field: string; message: string }[];
}

export interface Command {
  request_id: string;
  type: 'acquire' | 'renew' | 'release' | 'status';
  resource: string;
  owner?: string;
  ttl_seconds?: number;
  wait_ms?: number;
  fencing_token?: number;
  cancels?: string;
}

export interface LockClientOptions {
  brokers: string[];
  commandTopic?: string;
  replyTopic?: string;
  /** the reply partition this instance reads; random when left out */
  replyPartition?: number;
  requestTimeoutMs?: number;
  /** more KafkaJS settings (SASL, TLS, ...) */
  kafka?: Partial<KafkaConfig>;
}

export class LockClient {
  constructor(options: LockClientOptions);
  static connect(options: LockClientOptions): Promise<LockClient>;
  readonly replyPartition: number;
  start(): Promise<LockClient>;
  close(): Promise<void>;
  acquire(resource: string, owner: string, ttlSeconds: number, options?: { requestId?: string; waitSeconds?: number; mode?: 'exclusive' | 'shared'; limit?: number; value?: string }): Promise<Reply>;
  renew(resource: string, owner: string, ttlSeconds: number, options?: { fencingToken?: number; requestId?: string }): Promise<Reply>;
  release(resource: string, owner: string, options?: { fencingToken?: number; requestId?: string }): Promise<Reply>;
  status(resource: string, options?: { owner?: string; requestId?: string }): Promise<Reply>;
  /** the cancellation's reply: released, not_found or forbidden; published only once the broker acknowledged the acquire */
  cancel(acquire: Command, options?: { timeoutMs?: number }): Promise<Reply>;
  send(command: Command): Promise<Reply>;
  tryAcquire(resource: string, owner: string, ttlSeconds: number, waitSeconds?: number, options?: { mode?: 'exclusive' | 'shared'; limit?: number }): Promise<HeldLease | null>;
  lock(resource: string, owner: string, ttlSeconds: number, waitSeconds?: number): Promise<HeldLease>;
  withLock<T>(resource: string, owner: string, ttlSeconds: number, waitSeconds: number, action: (lease: HeldLease) => Promise<T>): Promise<T | null>;
}

export class HeldLease implements AsyncDisposable {
  /** `validFromMs`: the local time (performance.now()) the lease began no earlier than, see validFrom() */
  constructor(client: LockClient, lock: Lock, owner: string, ttlSeconds: number, validFromMs: number,
    options?: { renewFraction?: number; safetyMargin?: number });
  start(): HeldLease;
  /** the local end (performance.now()): lost then unless a renewal moves it */
  readonly validUntil: number;
  readonly lock: Lock;
  readonly resource: string;
  readonly fencingToken: number;
  readonly owner: string;
  readonly ttl: number;
  /** null while held */
  readonly loss: LeaseLostError | null;
  /** resolves when the lease is lost */
  readonly lost: Promise<LeaseLostError>;
  onLost(callback: (loss: LeaseLostError) => void): void;
  /** throws LeaseLostError once the lease is lost or past its local end */
  check(): void;
  release(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export class LockClientError extends Error {}
export class LockTimeoutError extends LockClientError { readonly cancelled: boolean; }
export class InvalidCommandError extends LockClientError { readonly problem: Problem; readonly fields: string[]; }
export class ReplyMismatchError extends LockClientError {}
export class RequestIdInUseError extends LockClientError {}
export class NotAcquiredError extends LockClientError {}
export class LeaseLostError extends LockClientError {
  readonly resource: string;
  readonly fencingToken: number;
  readonly reason: 'not_found' | 'forbidden' | 'expired';
}

/** the earliest local time (performance.now()) the lease an acquired reply grants can have begun: firstSent + waitedMs, at most received */
export function validFrom(firstSentMs: number, reply: Reply, receivedMs: number): number;
export function murmur2(bytes: Uint8Array): number;
export function partitionOf(key: string, partitionCount: number): number;
export function parseReply(value: Buffer): Reply | null;
export function mismatch(command: Command, reply: Reply): string | null;
