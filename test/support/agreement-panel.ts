import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Agreement } from '../../src/prompts/agreement/account.js';
import type { RunRecord } from '../../src/run/record.js';
import { promptOf } from './agreeing-synthesizer.js';
import type { Behaviour, FakeOpenRouter } from './fake-openrouter.js';
import { callTool, type Harness } from './harness.js';

/** What the candidates of a panel answer, in order: "ONE-ANSWER", "TWO-ANSWER", "THREE-ANSWER". */
export const WORDS = ['ONE', 'TWO', 'THREE'];

/** Three candidates named after `prefix`, each answering "<N>-ANSWER" (then `then`, for a council's ranking), and a synthesizer. */
export function panelOn(fake: FakeOpenRouter, prefix: string, synthesizer: Behaviour, then?: Behaviour) {
  const models = ['one', 'two', 'three'].map((name) => `${prefix}/${name}`);
  for (const [i, model] of models.entries()) fake.on(model, { answer: `${WORDS[i]}-ANSWER`, delayMs: 10 * i }, ...(then ? [then] : []));
  fake.on(`${prefix}/synth`, synthesizer);
  return { env: { PARALLEL_LLM_MODELS: models.join(','), PARALLEL_LLM_SYNTHESIZER_MODEL: `${prefix}/synth` }, models };
}

/** A council member that ranks the others in the order shown: the rankings only have to be readable. */
export const showOrderRanker: Behaviour = {
  fromRequest: (request) => ({
    answer: `RANKING: ${[...promptOf(request).matchAll(/^### Candidate ([A-Z]+)$/gm)].map((m) => m[1]).join(' > ')}`,
  }),
};

/** The account the stand-in synthesizer writes (test/support/agreeing-synthesizer.ts), by the ids of `models` in the order shown. */
export function standInAccount(models: string[]): Agreement {
  return {
    consensus: ['the problem is real'],
    disagreements: [
      {
        point: 'the fix',
        positions: [
          { models: [models[0]!], view: 'patch it' },
          { models: models.slice(1), view: 'rewrite it' },
        ],
        resolution: 'patch it now, rewrite later',
      },
    ],
    unique: [{ model: models.at(-1)!, point: 'an edge case', kept: true }],
  };
}

/** The models of a council's synthesis prompt, by the letters in the order the synthesizer saw them. */
export function byLetter(prompt: string, models: string[]): string[] {
  return [...prompt.matchAll(/^### Candidate ([A-Z]+)\n\n(\w+)-ANSWER/gm)].map((match) => models[WORDS.indexOf(match[2]!)]!);
}

export const ask = (harness: Harness, args: Record<string, unknown> = {}) =>
  callTool(harness, 'process_prompt', { prompt: 'Which is right?', ...args });

export const runJson = async (folder: string): Promise<RunRecord> => JSON.parse(await readFile(path.join(folder, 'run.json'), 'utf8'));
