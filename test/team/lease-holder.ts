/**
 * For test/team/run-store-members.test.ts: a process that holds an instance's lease in Postgres,
 * as a process running runs does, until it is killed.
 *
 *   node --import tsx test/team/lease-holder.ts <database-url> <instance>
 *
 * stdout: `held` once the lease is held.
 */
import { openPool, PgRunStorage } from '../../packages/team/src/index.js';

async function main(url: string, instance: string): Promise<void> {
  const store = new PgRunStorage(openPool(url, { max: 1 }), { id: '0', name: 'holder' });
  store.lease(instance).hold(new Promise(() => undefined));
  while (!(await store.leaseFresh(instance))) await new Promise((resolve) => setTimeout(resolve, 10));
  process.stdout.write('held\n');
  // Kept alive by the lease's connection; stdin closing (the test ended) ends it.
  process.stdin.resume().on('end', () => process.exit(0));
}

const [url, instance] = process.argv.slice(2);
main(url!, instance!).catch((error: unknown) => {
  process.stderr.write(`lease-holder failed: ${String(error)}\n`);
  process.exit(2);
});
