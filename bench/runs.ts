/**
 * Does the full synthesis reach a client whose limit is shorter than the run?
 *
 * Replays the original's observed timings against the loopback fake OpenRouter: five
 * candidates answering after 6, 21, 44, 73 and 98 s and a synthesizer taking 45 s (a run of
 * about 143 s). The installed bin is driven over stdio by the SDK client with a request timeout
 * of the client's limit and no reset on progress, as Claude Desktop does. The client calls
 * process_prompt, then get_run while the status is `running`, and counts the calls, each call's
 * time, and the requests the fake received.
 *
 *   - 1/10 scale: a 6 s limit, PARALLEL_LLM_BUDGET_MS=5500, BENCH_RUNS runs (default 5)
 *   - full scale: a 60 s limit, PARALLEL_LLM_BUDGET_MS=55000, one run (BENCH_FULL=0 skips it)
 *
 *   npm run bench -- runs
 */
import { performance } from 'node:perf_hooks';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FakeOpenRouter } from '../test/support/fake-openrouter.js';
import {
  connect,
  freshPrompt,
  installedBin,
  median,
  report,
  round,
  serverEnv,
  startFakeOpenRouter,
  tempOutputDir,
  type Session,
} from './lib.js';

const CANDIDATE_S = [6, 21, 44, 73, 98];
const SYNTHESIS_S = 45;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

interface Scale {
  name: string;
  factor: number;
  clientLimitMs: number;
  budgetMs: number;
}

const SCALES: Scale[] = [
  { name: '1/10 scale, 6 s limit', factor: 0.1, clientLimitMs: 6000, budgetMs: 5500 },
  ...(process.env.BENCH_FULL === '0' ? [] : [{ name: 'full scale, 60 s limit', factor: 1, clientLimitMs: 60_000, budgetMs: 55_000 }]),
];

interface Run {
  complete: boolean;
  answered: number;
  calls: number;
  callMs: number[];
  totalMs: number;
  candidateRequests: number;
  synthesisRequests: number;
  error?: string;
}

async function call(session: Session, name: string, args: Record<string, unknown>, timeoutMs: number) {
  const started = performance.now();
  const result = (await session.client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs })) as CallToolResult;
  const data = result.structuredContent as { status: string; run_id: string; models: Array<{ status: string }> };
  return { ms: performance.now() - started, data };
}

/** One run: process_prompt, then get_run until it is over, each within the client's limit. */
async function oneRun(session: Session, fake: FakeOpenRouter, scale: Scale, models: string[], synthesizer: string): Promise<Run> {
  const before = fake.requests.length;
  const started = performance.now();
  const callMs: number[] = [];
  try {
    let { ms, data } = await call(session, 'process_prompt', { prompt: freshPrompt('runs') }, scale.clientLimitMs);
    callMs.push(ms);
    while (data.status === 'running' && callMs.length < 20) {
      ({ ms, data } = await call(session, 'get_run', { run_id: data.run_id }, scale.clientLimitMs));
      callMs.push(ms);
    }
    const requests = fake.requests.slice(before);
    return {
      complete: data.status === 'complete',
      answered: data.models.filter((model) => model.status === 'answered').length,
      calls: callMs.length,
      callMs,
      totalMs: performance.now() - started,
      candidateRequests: requests.filter((request) => models.includes(request.model)).length,
      synthesisRequests: requests.filter((request) => request.model === synthesizer).length,
    };
  } catch (error) {
    return {
      complete: false,
      answered: 0,
      calls: callMs.length + 1,
      callMs,
      totalMs: performance.now() - started,
      candidateRequests: 0,
      synthesisRequests: 0,
      error: String(error),
    };
  }
}

async function measure(scale: Scale, binPath: string) {
  const fake = await startFakeOpenRouter({ keepAliveCommentMs: 1000 });
  const models = CANDIDATE_S.map((_, i) => `runs/candidate-${i + 1}`);
  for (const [i, model] of models.entries())
    fake.on(model, { answer: `answer of ${model}`, delayMs: CANDIDATE_S[i]! * 1000 * scale.factor });
  const synthesizer = 'runs/synthesizer';
  fake.on(synthesizer, { answer: 'the synthesis', delayMs: SYNTHESIS_S * 1000 * scale.factor });
  const env = serverEnv(fake, await tempOutputDir(), {
    PARALLEL_LLM_MODELS: models.join(','),
    PARALLEL_LLM_SYNTHESIZER_MODEL: synthesizer,
    PARALLEL_LLM_BUDGET_MS: String(scale.budgetMs),
    PARALLEL_LLM_TIMEOUT_MS: String(240_000 * scale.factor),
  });
  const session = await connect(binPath, env);
  const runs: Run[] = [];
  for (let i = 0; i < (scale.factor === 1 ? 1 : RUNS); i++) runs.push(await oneRun(session, fake, scale, models, synthesizer));
  await session.close();
  await fake.close();
  const calls = runs.map((run) => run.calls);
  const callMs = runs.flatMap((run) => run.callMs);
  return {
    scale: scale.name,
    runs: runs.length,
    completeSynthesisOfAllFive: `${runs.filter((run) => run.complete && run.answered === 5).length}/${runs.length}`,
    callsPerRun: { max: Math.max(...calls), median: median(calls) },
    slowestCallMs: round(Math.max(...callMs)),
    clientLimitMs: scale.clientLimitMs,
    callsOverTheLimit: callMs.filter((ms) => ms >= scale.clientLimitMs).length,
    requestsPerRun: runs.map((run) => `${run.candidateRequests} candidates + ${run.synthesisRequests} synthesis`),
    runSecondsMedian: round(median(runs.map((run) => run.totalMs)) / 1000),
    errors: runs.flatMap((run) => (run.error ? [run.error] : [])),
  };
}

const { binPath, cleanup } = await installedBin();
const results = [];
for (const scale of SCALES) results.push(await measure(scale, binPath));
await cleanup();
await report('runs', { candidatesS: CANDIDATE_S, synthesisS: SYNTHESIS_S, results });
