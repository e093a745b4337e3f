// Compiled, not run (npm run types): the declarations in index.d.ts as a TypeScript user writes
// against them, `await using` included. A declaration that does not fit its use fails the build.
import { InvalidCommandError, LeaseLostError, LockClient, NotAcquiredError, Reply, partitionOf } from '..';

export async function hold(client: LockClient, write: (token: number) => Promise<void>): Promise<void> {
  await using lease = await client.lock('payment:42', 'worker-1', 30, 5);
  lease.onLost((loss: LeaseLostError) => console.error(loss.reason));
  lease.check();
  await write(lease.fencingToken);
}

export async function calls(): Promise<number> {
  const client = await LockClient.connect({ brokers: ['127.0.0.1:9092'], requestTimeoutMs: 5000 });
  try {
    const acquired: Reply = await client.acquire('payment:42', 'worker-1', 30);
    const waited: Reply = await client.acquire('payment:42', 'worker-2', 30, { waitSeconds: 5 });
    const why: 'wait_expired' | 'queue_full' | 'cancelled' | null = waited.reason;
    const token: number = acquired.lock?.fencingToken ?? 0;
    await client.renew('payment:42', 'worker-1', 30, { fencingToken: token });
    const status = await client.status('payment:42');
    const held: string | undefined = status.outcome === 'locked' ? status.lock?.owner : undefined;
    await client.release('payment:42', 'worker-1', { fencingToken: token });
    const ran: string | null = await client.withLock('job', 'worker-1', 10, 0, async () => held ?? 'none');
    const lease = await client.tryAcquire('job', 'worker-1', 10, 1);
    await lease?.release();
    const permit = await client.acquire('pool', 'worker-1', 10, { limit: 4 });
    const which: number = permit.lock?.permit ?? 0;
    const reader = await client.tryAcquire('doc', 'worker-1', 10, 1, { mode: 'shared' });
    await reader?.release();
    if (which < 0) return which;
    return partitionOf('payment:42', 12) + (ran === null ? 0 : 1);
  } catch (e) {
    if (e instanceof InvalidCommandError) return e.fields.length;
    if (e instanceof NotAcquiredError) return -1;
    throw e;
  } finally {
    await client.close();
  }
}
