/**
 * Soak: many calls in a row on one server process (and its run host), with mixed upstream faults (5xx, resets,
 * malformed bodies, mid-stream errors, hangs cut by the silence limit). Nothing may grow
 * without bound (RSS, open file descriptors) and nothing may be lost: every call returns,
 * every answered model's answer is on disk, every run.json agrees with the result.
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Behaviour } from '../test/support/fake-openrouter.js';
import { connect, installedBin, report, round, serverEnv, startFakeOpenRouter, tempOutputDir } from './lib.js';
import { pidsRunning, productPaths } from './procs.js';

const BEHAVIOURS: Record<string, Behaviour> = {
  'ok/fast': { answer: 'a fast answer', delayMs: 5 },
  'ok/slow': { answer: 'a slower answer', delayMs: 40, chunks: 8 },
  'ok/reasoning': { answer: 'an answer after thought', reasoning: 'thinking...', delayMs: 15 },
  'fault/503': { status: 503, error: { code: 503, message: 'No instances available' }, headers: { 'retry-after': '0' } },
  'fault/reset': { reset: true },
  'fault/malformed': { sse: ['data: {"choices": [ {"delta": ', '', 'data: [DONE]', ''] },
  'fault/midstream': {
    sse: [
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'half' } }] })}`,
      '',
      `data: ${JSON.stringify({ error: { code: 502, message: 'Provider disconnected' }, choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }] })}`,
      '',
    ],
  },
  'fault/hang': { hang: true },
};
const OK = ['ok/fast', 'ok/slow', 'ok/reasoning'];
const FAULTS = Object.keys(BEHAVIOURS).filter((model) => model.startsWith('fault/'));

/** A small seeded generator, so every soak run asks the same sequence. */
function seeded(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** Resident memory and open file descriptors of the product's processes (the server and its run host), summed. */
async function processStats(paths: string[]) {
  let rssKiB = 0;
  let openFds = 0;
  const pids = await pidsRunning(paths);
  for (const pid of pids) {
    rssKiB += Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))![1]);
    openFds += (await readdir(`/proc/${pid}/fd`)).length;
  }
  return { processes: pids.length, rssMiB: round(rssKiB / 1024), openFds };
}

export interface SoakFigures {
  calls: number;
  seconds: number;
  returned: number;
  lost: number;
  statuses: Record<string, number>;
  modelErrors: Record<string, number>;
  runFoldersWritten: number;
  answerFilesChecked: number;
  start: { processes: number; rssMiB: number; openFds: number };
  end: { processes: number; rssMiB: number; openFds: number };
  samples: Array<{ call: number; processes: number; rssMiB: number; openFds: number }>;
}

export async function runSoak(options: { calls: number; binPath: string; seed?: number }): Promise<SoakFigures> {
  const fake = await startFakeOpenRouter({ keepAliveCommentMs: 50 });
  for (const [model, behaviour] of Object.entries(BEHAVIOURS)) fake.on(model, behaviour);
  fake.on('soak/synth', { answer: 'merged', delayMs: 5 });
  const outputDir = await tempOutputDir();
  const env = serverEnv(fake, outputDir, {
    PARALLEL_LLM_SYNTHESIZER_MODEL: 'soak/synth',
    PARALLEL_LLM_TIMEOUT_MS: '2000',
    PARALLEL_LLM_IDLE_TIMEOUT_MS: '150',
    PARALLEL_LLM_MAX_RETRIES: '1',
    PARALLEL_LLM_BUDGET_MS: '20000',
    PARALLEL_LLM_LOG_LEVEL: 'error',
  });
  const session = await connect(options.binPath, env);
  const paths = await productPaths(options.binPath);
  const random = seeded(options.seed ?? 7);
  const pickModels = () =>
    Array.from({ length: 5 }, () =>
      random() < 0.7 ? OK[Math.floor(random() * OK.length)]! : FAULTS[Math.floor(random() * FAULTS.length)]!,
    );

  const statuses: Record<string, number> = {};
  const modelErrors: Record<string, number> = {};
  const samples: SoakFigures['samples'] = [];
  let returned = 0;
  let answerFilesChecked = 0;
  const lost: string[] = [];
  const warmup = Math.min(20, Math.floor(options.calls / 10));
  let start = await processStats(paths);
  const started = Date.now();
  for (let call = 0; call < options.calls; call++) {
    if (call === warmup) start = await processStats(paths);
    if (call % Math.max(1, Math.floor(options.calls / 8)) === 0) samples.push({ call, ...(await processStats(paths)) });
    const models = pickModels();
    const result = await session.client.callTool({ name: 'process_prompt', arguments: { prompt: `soak ${call}`, models } });
    const data = result.structuredContent as {
      status: string;
      run_folder: string;
      models: Array<{ status: string; file?: string; error?: { kind: string } }>;
    };
    returned++;
    statuses[data.status] = (statuses[data.status] ?? 0) + 1;
    const anyOk = models.some((model) => model.startsWith('ok/'));
    if ((data.status === 'failed') === anyOk) lost.push(`call ${call}: status ${data.status} with models ${models.join(',')}`);
    const journal = await settledJournal(data.run_folder);
    if (journal.status !== data.status) lost.push(`call ${call}: run.json says ${journal.status}, the result ${data.status}`);
    for (const model of data.models) {
      if (model.error) modelErrors[model.error.kind] = (modelErrors[model.error.kind] ?? 0) + 1;
      if (model.status === 'answered') {
        await readFile(model.file!, 'utf8');
        answerFilesChecked++;
      }
    }
  }
  const seconds = round((Date.now() - started) / 1000);
  const end = await processStats(paths);
  samples.push({ call: options.calls, ...end });
  const runFoldersWritten = (await readdir(outputDir)).filter((name) => !name.startsWith('.')).length;
  await session.close();
  await fake.close();
  if (lost.length > 0) throw new Error(`lost or inconsistent results:\n${lost.slice(0, 10).join('\n')}`);
  return {
    calls: options.calls,
    seconds,
    returned,
    lost: lost.length,
    statuses,
    modelErrors,
    runFoldersWritten,
    answerFilesChecked,
    start,
    end,
    samples,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { binPath, cleanup } = await installedBin();
  const figures = await runSoak({ calls: Number(process.env.BENCH_CALLS ?? 2000), binPath });
  await cleanup();
  await report('soak', { ...figures });
}

/** run.json once its last entry is written: the result goes out first, the journal follows within moments. */
async function settledJournal(folder: string): Promise<{ status: string }> {
  const read = async () => JSON.parse(await readFile(path.join(folder, 'run.json'), 'utf8')) as { status: string };
  for (let waited = 0; waited < 2000; waited += 10) {
    const journal = await read();
    if (journal.status !== 'running') return journal;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return read();
}
