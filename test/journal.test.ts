import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../src/run/record.js';
import { RunStore } from '../src/store/run-store.js';
import type { RunPlace } from '../src/store/store.js';
import { tempDir } from './support/harness.js';
import { journalOn as journalIn } from './support/journal.js';

/** A run's journal on a real run folder, seen only through the store's seam. */
async function journalOn(change: (place: RunPlace) => RunPlace = (place) => place) {
  const place = change(await new RunStore(await tempDir()).createRun());
  const { journal, record, warnings } = journalIn(place);
  const onDisk = async () => JSON.parse(await readFile(path.join(place.dir, 'run.json'), 'utf8')) as RunRecord;
  return { journal, record, warnings, onDisk, place };
}

describe('the journal (run.json)', () => {
  it('is flushed only once its latest entry is kept', async () => {
    const { journal, record, onDisk } = await journalOn();
    record.status = 'complete';
    void journal.saveRecord();
    await journal.flushed();
    expect((await onDisk()).status).toBe('complete');
  });

  it('names final.md in the last entry only once it is kept, and not at all, with a warning, when it cannot be', async () => {
    const kept = await journalOn();
    kept.journal.saveSynthesis('the answer', undefined);
    expect(await kept.journal.saveLast()).toBe(true);
    expect((await kept.onDisk()).synthesis.file).toBe('final.md');
    expect(await readFile(path.join(kept.place.dir, 'final.md'), 'utf8')).toBe('the answer');

    const refused = await journalOn((place) => {
      const write = place.write.bind(place);
      place.write = (name, text) => (name === 'final.md' ? Promise.reject(new Error('no space left on device')) : write(name, text));
      return place;
    });
    refused.journal.saveSynthesis('the answer', undefined);
    expect(await refused.journal.saveLast()).toBe(true);
    expect((await refused.onDisk()).synthesis.file).toBeUndefined();
    expect(refused.warnings).toEqual(['could not save final.md: no space left on device']);
  });
});
