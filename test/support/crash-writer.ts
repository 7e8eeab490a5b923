/**
 * A process for test/crash.test.ts to kill: it opens one run folder with the real RunStore
 * and rewrites a dozen files of verifiable content in it, four at a time, for ever.
 *
 *   node --import tsx test/support/crash-writer.ts <output-dir> <seed>
 *
 * stdout, one line each: `run <folder>` once the folder exists, then `wrote <name> <generation>`
 * after each write has completed (so the test knows what must be on disk).
 *
 * Content of a file: the header line `crash-writer <name> gen=<g> bytes=<n>\n`, then the unit
 * `<name>:<g>|` repeated and cut so that the whole file is exactly n bytes (ASCII throughout).
 */
import { RunStore } from '../../src/store/run-store.js';

const FILE_COUNT = 12;
const LANES = 4;
const MIN_BYTES = 200_000;
const MAX_BYTES = 1_200_000;

const fileName = (i: number) => `file-${String(i).padStart(2, '0')}.txt`;

function content(name: string, generation: number, bytes: number): string {
  const header = `crash-writer ${name} gen=${generation} bytes=${bytes}\n`;
  const unit = `${name}:${generation}|`;
  return (header + unit.repeat(Math.ceil((bytes - header.length) / unit.length) + 1)).slice(0, bytes);
}

async function main(outputDir: string, seed: number): Promise<void> {
  let state = seed >>> 0 || 1;
  const random = () => {
    // xorshift32: deterministic sizes for a given seed.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  const folder = await new RunStore(outputDir).createRun();
  process.stdout.write(`run ${folder.dir}\n`);
  // Independent lanes, each with its own files, so that while one lane builds its next
  // content the others are mid-write: a kill almost always finds writes under way.
  const lane = async (k: number) => {
    for (let generation = 1; ; generation++) {
      for (let i = k; i < FILE_COUNT; i += LANES) {
        const name = fileName(i);
        const bytes = MIN_BYTES + Math.floor(random() * (MAX_BYTES - MIN_BYTES));
        await folder.write(name, content(name, generation, bytes));
        process.stdout.write(`wrote ${name} ${generation}\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: LANES }, (_, k) => lane(k)));
}

const [outputDir, seed] = process.argv.slice(2);
if (!outputDir) {
  process.stderr.write('usage: crash-writer <output-dir> <seed>\n');
  process.exit(2);
}
main(outputDir, Number(seed ?? 1)).catch((error: unknown) => {
  process.stderr.write(`crash-writer failed: ${String(error)}\n`);
  process.exit(2);
});
