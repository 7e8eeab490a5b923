/**
 * For test/liveness.test.ts: a process that owns runs, as far as liveness goes. It makes an
 * owner, keeps its lease in the output folder fresh, prints the owner, then answers, for
 * each line it reads (a JSON { run_id, owner, leaseFreshMs }), whether that owner is alive.
 *
 *   node --import tsx test/support/liveness-probe.ts <output-dir> <touch-ms>
 *
 * stdout: the owner as one JSON line, then `true` or `false` for each question.
 */
import { createInterface } from 'node:readline';
import { Liveness } from '../../src/run/liveness.js';
import { LeaseKeeper } from '../../src/store/leases.js';
import { RunStore } from '../../src/store/run-store.js';

async function main(outputDir: string, touchMs: number): Promise<void> {
  const store = new RunStore(outputDir);
  const liveness = new Liveness(store);
  const owner = liveness.newOwner();
  const keeper = new LeaseKeeper(store.leases, owner.instance, touchMs);
  keeper.hold(new Promise(() => undefined));
  // Held by the interval's next tick at the latest: wait for the first touch to land.
  while (!(await store.leases.fresh(owner.instance))) await new Promise((resolve) => setTimeout(resolve, 10));
  process.stdout.write(`${JSON.stringify(owner)}\n`);
  for await (const line of createInterface({ input: process.stdin })) {
    const { leaseFreshMs, ...subject } = JSON.parse(line);
    // Its own owner is asked of the liveness that made it, which knows that it runs no run.
    const asker = subject.owner.instance === owner.instance ? liveness : new Liveness(store, leaseFreshMs);
    process.stdout.write(`${await asker.alive(subject)}\n`);
  }
}

const [outputDir, touchMs] = process.argv.slice(2);
main(outputDir!, Number(touchMs)).catch((error: unknown) => {
  process.stderr.write(`liveness-probe failed: ${String(error)}\n`);
  process.exit(2);
});
