/** Memory: peak RSS of the server with 8 simultaneous calls whose candidates return 2 MB each. */
import { readFile } from 'node:fs/promises';
import { connect, installedBin, processPrompt, report, round, serverEnv, startFakeOpenRouter, tempOutputDir } from './lib.js';

const CALLS = 8;
const ANSWER_BYTES = 2 * 1024 * 1024;

/** VmHWM is the kernel's record of the process's peak resident set. */
async function rssKiB(pid: number, field: 'VmHWM' | 'VmRSS'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)![1]);
}

const fake = await startFakeOpenRouter();
const models = ['m/1', 'm/2', 'm/3', 'm/4', 'm/5'];
models.forEach((model, i) => fake.on(model, { answer: String(i).repeat(ANSWER_BYTES), delayMs: 50, chunks: 64 }));
fake.on('m/synth', { answer: 'synthesized', delayMs: 50 });
const { binPath, cleanup } = await installedBin();
const session = await connect(binPath, serverEnv(fake, await tempOutputDir(), { PARALLEL_LLM_MODELS: models.join(','), PARALLEL_LLM_SYNTHESIZER_MODEL: 'm/synth', PARALLEL_LLM_BUDGET_MS: '600000' }));
const pid = session.pid!;
const idleRss = await rssKiB(pid, 'VmRSS');
const results = await Promise.all(Array.from({ length: CALLS }, (_, i) => processPrompt(session, { prompt: `call ${i}` }, { timeout: 120_000 })));
const peak = await rssKiB(pid, 'VmHWM');
const after = await rssKiB(pid, 'VmRSS');
const synthesisPromptChars = Math.max(...fake.requestsFor('m/synth').map((r) => JSON.stringify(r.body).length));
await session.close();
await fake.close();
await cleanup();
await report('memory', {
  calls: CALLS,
  candidateAnswerMiB: ANSWER_BYTES / 2 ** 20,
  dataReceivedMiB: (CALLS * models.length * ANSWER_BYTES) / 2 ** 20,
  allComplete: results.every(({ data }) => data.status === 'complete'),
  idleRssMiB: round(idleRss / 1024),
  peakRssMiB: round(peak / 1024),
  rssAfterMiB: round(after / 1024),
  largestSynthesisRequestChars: synthesisPromptChars,
});
