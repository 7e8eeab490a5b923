import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunFiles } from '../src/run/files.js';
import { RunJournal } from '../src/run/journal.js';
import type { RunRecord } from '../src/run/record.js';
import { RunStore, type RunFolder } from '../src/store/run-store.js';
import { silentLogger } from './support/client.js';
import { tempDir } from './support/harness.js';

/** A run's journal on a real folder, and every content written to its run.json. */
async function journalOnDisk() {
  const folder = await new RunStore(await tempDir()).createRun();
  const written: RunRecord[] = [];
  const counted = new Proxy(folder, {
    get(target, property) {
      if (property === 'write') {
        return (name: string, text: string, options?: { catchUp?: boolean }) => {
          if (name === 'run.json') written.push(JSON.parse(text) as RunRecord);
          return target.write(name, text, options);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as RunFolder;
  const record = {
    status: 'running',
    candidates: [{ index: 1, model: 'm/a', status: 'waiting' }],
    synthesis: { status: 'waiting', attempts: [] },
    totals: {},
    warnings: [],
  } as unknown as RunRecord;
  const files = new RunFiles(folder.dir, Promise.resolve(counted), () => undefined, silentLogger);
  const onDisk = async () => JSON.parse(await readFile(path.join(folder.dir, 'run.json'), 'utf8')) as RunRecord;
  return { journal: new RunJournal(record, files), record, written, onDisk };
}

describe('the journal (run.json)', () => {
  it('writes the steps of one turn of the event loop as one entry: a last answer and the synthesis it starts', async () => {
    const { journal, record, written, onDisk } = await journalOnDisk();
    record.candidates[0]!.status = 'answered';
    const answered = journal.save();
    record.synthesis.status = 'running';
    const synthesizing = journal.save();
    expect(await Promise.all([answered, synthesizing])).toEqual([true, true]);
    expect(written).toHaveLength(1);
    expect(await onDisk()).toMatchObject({ candidates: [{ status: 'answered' }], synthesis: { status: 'running' } });

    record.status = 'complete';
    expect(await journal.save()).toBe(true);
    expect(written.map((entry) => entry.status)).toEqual(['running', 'complete']);
  });

  it('is flushed only once the entry of the current turn is on disk', async () => {
    const { journal, record, onDisk } = await journalOnDisk();
    record.status = 'complete';
    void journal.save();
    await journal.flushed();
    expect((await onDisk()).status).toBe('complete');
  });
});
