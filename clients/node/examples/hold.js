#!/usr/bin/env node
// Hold a lock while a job runs, with lockstep's Node client:
//   node clients/node/examples/hold.js payment:42 worker-1
// Waits up to 5 s for the lock, then writes with the fencing token while the lease renews itself.
const { LockClient, NotAcquiredError } = require('..');

async function main() {
  const [resource, owner, bootstrap = '127.0.0.1:9092'] = process.argv.slice(2);
  const client = await LockClient.connect({ brokers: [bootstrap] });
  try {
    const done = await client.withLock(resource, owner, 30, 5, async (lease) => {
      lease.onLost((loss) => console.error(`lost: ${loss.message}`));
      for (let step = 0; step < 3; step++) {
        lease.check(); // throws LeaseLostError once the lease is gone
        console.log(`write ${step} to ${resource} with fencing token ${lease.fencingToken}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      return true;
    });
    if (!done) throw new NotAcquiredError(`${resource} is held by another owner`);
  } finally {
    await client.close();
  }
}

main().catch((e) => { console.error(e.message); process.exit(1); });
