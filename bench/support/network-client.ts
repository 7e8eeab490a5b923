/**
 * The client side of bench/network.ts, in its own process so that NODE_EXTRA_CA_CERTS
 * (read once, at start) makes the real OpenRouterClient trust the fake's self-signed
 * certificate, with verification left on.
 *
 *   NODE_EXTRA_CA_CERTS=cert.pem node --import tsx bench/support/network-client.ts DESIGN URL [CALLS] [MODELS]
 *
 * DESIGN is "pooled" (one OpenRouterClient for every call, as the product does) or
 * "client-per-call" (a new OpenRouterClient for each model call, closed after it, as the
 * original Python project did with a new HTTP client per call). The workload: CALLS tool
 * calls one after another, each MODELS models in parallel and then one synthesizer call.
 *
 * Before the measured run it warms up (module loading, JIT, the CA store) with one
 * request through a throwaway client, closed at once, prints {"warm":true} and waits for
 * a line "go" on stdin, so the bench can read the server's counters in between. The
 * throwaway client's connection and TLS session die with it: the measured run starts cold
 * on the network, as the process's first tool call would. Then it prints one JSON line of
 * timings.
 */
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { pino } from 'pino';
import { OpenRouterClient, type ChatRequest } from '../../src/openrouter/client.js';
import { VALID_KEY } from '../../test/support/fake-openrouter.js';

const [design, url, callsArg, modelsArg] = process.argv.slice(2);
if ((design !== 'pooled' && design !== 'client-per-call') || !url) {
  process.stderr.write('usage: network-client.ts pooled|client-per-call URL [CALLS] [MODELS]\n');
  process.exit(2);
}
const calls = Number(callsArg ?? 10);
const modelCount = Number(modelsArg ?? 5);
const models = Array.from({ length: modelCount }, (_, i) => `bench/model-${i + 1}`);
const logger = pino({ level: 'silent' });

// The product's own settings (config.ts defaults): a pool as wide as the concurrency limit.
const newClient = () =>
  new OpenRouterClient({
    apiKey: VALID_KEY,
    baseUrl: url,
    timeoutMs: 240_000,
    idleTimeoutMs: 90_000,
    maxConnections: 5,
    logger,
    retry: { maxRetries: 2 },
  });

const pooled = design === 'pooled' ? newClient() : undefined;
const requestMs: number[] = [];
let attempts = 0;
let failures = 0;

/** One model call. Client-per-call pays for building and closing its client inside the call. */
async function modelCall(chat: ChatRequest): Promise<string> {
  const started = performance.now();
  const client = pooled ?? newClient();
  try {
    const completion = await client.complete(chat);
    attempts += completion.attempts;
    return completion.content;
  } catch (error) {
    failures++;
    return `(failed: ${(error as Error).message})`;
  } finally {
    if (!pooled) await client.close();
    requestMs.push(performance.now() - started);
  }
}

const warmup = newClient();
await warmup.complete({ model: 'bench/warmup', prompt: 'warm up', temperature: 0.7, maxTokens: 100 });
await warmup.close();
process.stdout.write(`${JSON.stringify({ warm: true })}\n`);
const input = createInterface({ input: process.stdin });
const [go] = (await once(input, 'line')) as [string];
input.close();
if (go.trim() !== 'go') throw new Error(`expected "go", got ${JSON.stringify(go)}`);

const callMs: number[] = [];
const started = performance.now();
for (let call = 0; call < calls; call++) {
  const callStarted = performance.now();
  const prompt = `Question ${call + 1}: how do connection pools pay off over a slow link?`;
  const answers = await Promise.all(models.map((model) => modelCall({ model, prompt, temperature: 0.7, maxTokens: 1000 })));
  const synthesis = `Combine these answers into the best one.\n\n${answers.map((answer, i) => `## ${models[i]}\n${answer}`).join('\n\n')}`;
  await modelCall({ model: 'bench/synthesizer', prompt: synthesis, temperature: 0.7, maxTokens: 1000 });
  callMs.push(performance.now() - callStarted);
}
const wallMs = performance.now() - started;
await pooled?.close();

process.stdout.write(`${JSON.stringify({ design, calls, models: modelCount, wallMs, callMs, requestMs, attempts, failures })}\n`);
