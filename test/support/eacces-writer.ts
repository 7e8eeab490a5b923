/**
 * For test/disk-faults.test.ts: writes through the real RunStore into a run folder made
 * read-only mid-run, by each write path, and reports what each write did and what was left in
 * the staging folder. Run it without the right to override permissions (as root: under
 * `setpriv --bounding-set=-dac_override,-dac_read_search`).
 *
 *   node --import tsx test/support/eacces-writer.ts <output-dir>
 *
 * stdout: one JSON line, { "<path>": { "outcome": <error code or "written">, "staging": [names] } }.
 */
import { chmod, readdir } from 'node:fs/promises';
import path from 'node:path';
import { RunStore, type RunFolder } from '../../src/store/run-store.js';

type WritePath = (folder: RunFolder, readOnly: () => Promise<void>) => Promise<unknown>;

const paths: Record<string, WritePath> = {
  whole: async (folder, readOnly) => {
    await readOnly();
    return folder.write('whole.md', 'x'.repeat(100_000));
  },
  journal: async (folder, readOnly) => {
    await folder.write('run.json', '{"step":1}');
    await readOnly();
    return folder.write('run.json', '{"step":2}');
  },
  // The temporary file is open and half written when the folder turns read-only.
  streamed: async (folder, readOnly) => {
    const writer = folder.writer('streamed.md');
    writer.write('the first half, ');
    await readOnly();
    writer.write('the second half');
    return writer.finish();
  },
};

async function main(outputDir: string): Promise<void> {
  const store = new RunStore(outputDir);
  const report: Record<string, { outcome: string; staging: string[] }> = {};
  for (const [name, write] of Object.entries(paths)) {
    const folder = await store.createRun();
    const outcome = await write(folder, () => chmod(folder.dir, 0o500)).then(
      () => 'written',
      (error: NodeJS.ErrnoException) => error.code ?? error.message,
    );
    report[name] = { outcome, staging: await readdir(path.join(outputDir, '.staging')) };
    await chmod(folder.dir, 0o700);
  }
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

main(process.argv[2]!).catch((error: unknown) => {
  process.stderr.write(`eacces-writer failed: ${String(error)}\n`);
  process.exit(2);
});
