/**
 * For test/claims.test.ts: one of several processes that claim the same request at the same
 * moment. It opens the store, says `ready`, waits for `go` on stdin, then takes the request
 * (or follows whoever took it) and prints the outcome.
 *
 *   node --import tsx test/support/claim-racer.ts <output-dir> <request-key> <name>
 *
 * stdout: `ready`, then one JSON line { taken, generation, run_id }.
 */
import { createInterface } from 'node:readline';
import { takeClaim } from '../../src/run/claiming.js';
import { RunStore } from '../../src/store/run-store.js';

async function main(outputDir: string, key: string, name: string): Promise<void> {
  const store = new RunStore(outputDir);
  // The store's folders checked before the race, so that the race is only the claim.
  await store.claims.latest(key);
  process.stdout.write('ready\n');
  const lines = createInterface({ input: process.stdin });
  await new Promise<void>((resolve) => lines.once('line', () => resolve()));
  lines.close();
  const mine = { run_id: name, owner: { pid: process.pid }, at: new Date().toISOString() };
  const outcome = await takeClaim(store, key, (latest) => (latest ? undefined : mine));
  process.stdout.write(`${JSON.stringify({ taken: outcome.taken, generation: outcome.generation, run_id: outcome.claim.run_id })}\n`);
}

const [outputDir, key, name] = process.argv.slice(2);
main(outputDir!, key!, name!).catch((error: unknown) => {
  process.stderr.write(`claim-racer failed: ${String(error)}\n`);
  process.exit(2);
});
