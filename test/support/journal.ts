import type { Backoff } from '../../src/run/coalesce.js';
import { RunJournal } from '../../src/run/journal.js';
import type { RunRecord } from '../../src/run/record.js';
import type { RunPlace } from '../../src/store/store.js';
import { silentLogger } from './client.js';

/** A run's journal on `place`, whatever store it is in, with a record of one model waiting; what it warns of is collected. */
export function journalOn(place: RunPlace, catchUp?: Backoff) {
  const record = {
    status: 'running',
    candidates: [{ index: 1, model: 'm/a', status: 'waiting' }],
    synthesis: { status: 'answered', attempts: [] },
    totals: {},
    warnings: [],
  } as unknown as RunRecord;
  const warnings: string[] = [];
  const journal = new RunJournal(record, place, (message) => warnings.push(message), silentLogger, catchUp);
  return { journal, record, warnings };
}
