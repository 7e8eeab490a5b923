/**
 * Issue 3's figures, measured against real HTTP servers on loopback:
 * - the wait before retrying a 429 that carries `Retry-After: 1`;
 * - the time from a mid-stream error chunk leaving the server to the typed failure;
 * - the synthesis prompt's size for three candidates of 2 MB each, with the default budget.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { DEFAULT_SYNTHESIS_MAX_CHARS } from '../src/config/config.js';
import { OpenRouterClient } from '../src/openrouter/client.js';
import { VALID_KEY } from '../test/support/fake-openrouter.js';
import {
  connect,
  installedBin,
  median,
  percentile,
  processPrompt,
  report,
  round,
  serverEnv,
  startFakeOpenRouter,
  tempOutputDir,
} from './lib.js';

const logger = pino({ level: 'silent' });
const clientFor = (baseUrl: string) =>
  new OpenRouterClient({ apiKey: VALID_KEY, baseUrl, timeoutMs: 30_000, idleTimeoutMs: 30_000, maxConnections: 5, logger });
const chat = (model: string) => ({ model, prompt: 'q', temperature: 0.7, maxTokens: 100 });

async function retryAfterWaits(runs: number): Promise<number[]> {
  const fake = await startFakeOpenRouter();
  const client = clientFor(fake.url);
  const waits: number[] = [];
  for (let i = 0; i < runs; i++) {
    const model = `retry/${i}`;
    fake.on(
      model,
      { status: 429, error: { code: 429, message: 'Rate limit exceeded' }, headers: { 'retry-after': '1' } },
      { answer: 'ok' },
    );
    await client.complete(chat(model));
    const [first, second] = fake.requestsFor(model);
    waits.push(second!.at - first!.at);
  }
  await client.close();
  await fake.close();
  return waits;
}

/** A server that notes the moment it writes the error chunk, in this same process's clock. */
async function midStreamErrorLatencies(runs: number): Promise<number[]> {
  let sentAt = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': OPENROUTER PROCESSING\n\n');
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'Half an ans' } }] })}\n\n`);
      setTimeout(() => {
        sentAt = performance.now();
        res.write(
          `data: ${JSON.stringify({ error: { code: 'server_error', message: 'Provider disconnected' }, choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }] })}\n\n`,
        );
      }, 20);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = clientFor(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`);
  const latencies: number[] = [];
  for (let i = 0; i < runs; i++) {
    const error = await client.complete(chat('stream/error')).catch((caught: { kind?: string }) => caught);
    if ((error as { kind?: string }).kind !== 'provider') throw new Error('expected a provider failure');
    latencies.push(performance.now() - sentAt);
  }
  await client.close();
  server.closeAllConnections();
  server.close();
  return latencies;
}

async function synthesisPromptFor3x2MB(): Promise<{ candidateChars: number; synthesisPromptChars: number }> {
  const fake = await startFakeOpenRouter();
  const size = 2 * 1024 * 1024;
  const models = ['big/1', 'big/2', 'big/3'];
  for (const [i, model] of models.entries()) fake.on(model, { answer: String.fromCharCode(97 + i).repeat(size), chunks: 64 });
  fake.on('big/synth', { answer: 'merged' });
  const { binPath, cleanup } = await installedBin();
  const session = await connect(
    binPath,
    serverEnv(fake, await tempOutputDir(), { PARALLEL_LLM_MODELS: models.join(','), PARALLEL_LLM_SYNTHESIZER_MODEL: 'big/synth' }),
  );
  await processPrompt(session, { prompt: 'Review this.' });
  const prompt = (fake.requestsFor('big/synth')[0]!.body.messages as Array<{ content: string }>)[0]!.content;
  await session.close();
  await fake.close();
  await cleanup();
  return { candidateChars: size, synthesisPromptChars: prompt.length };
}

const waits = await retryAfterWaits(5);
const latencies = await midStreamErrorLatencies(20);
const synthesis = await synthesisPromptFor3x2MB();
await report('openrouter', {
  retryAfter1: { runs: waits.length, medianWaitMs: median(waits), minWaitMs: Math.min(...waits), maxWaitMs: Math.max(...waits) },
  midStreamErrorToTypedFailure: {
    runs: latencies.length,
    medianMs: round(median(latencies), 2),
    p95Ms: round(percentile(latencies, 95), 2),
    maxMs: round(Math.max(...latencies), 2),
  },
  synthesisPrompt: {
    candidates: 3,
    ...synthesis,
    defaultBudgetChars: DEFAULT_SYNTHESIS_MAX_CHARS,
    withinBudget: synthesis.synthesisPromptChars <= DEFAULT_SYNTHESIS_MAX_CHARS,
  },
});
