/**
 * Connections: the TCP connections the upstream accepts for 10 calls in a row of 5 models and
 * a synthesizer (60 requests), each server with its own fake so each count is its own.
 * Ours keeps a pool of at most PARALLEL_LLM_MAX_CONCURRENCY (5 by default) connections.
 */
import {
  assertAnswered,
  connect,
  freshPrompt,
  processPrompt,
  report,
  serversUnderTest,
  serverEnv,
  startFakeOpenRouter,
  tempOutputDir,
  type ServerCommand,
} from './lib.js';

const CALLS = 10;
const MAX_CONCURRENCY = 5;
const models = ['n/1', 'n/2', 'n/3', 'n/4', 'n/5'];

async function connectionsFor(server: ServerCommand): Promise<number> {
  const fake = await startFakeOpenRouter();
  for (const [i, model] of models.entries()) fake.on(model, { answer: `answer ${i}`, delayMs: 20 + 10 * i });
  fake.on('n/synth', { answer: 'synthesized', delayMs: 20 });
  const env = serverEnv(fake, await tempOutputDir(), { PARALLEL_LLM_MODELS: models.join(','), PARALLEL_LLM_SYNTHESIZER_MODEL: 'n/synth' });
  const session = await connect(server, env);
  for (let i = 0; i < CALLS; i++)
    assertAnswered(session, await processPrompt(session, { prompt: freshPrompt('connections') }), 'a connections call');
  await session.close();
  await fake.close();
  return fake.connections;
}

const servers = await serversUnderTest();
const ours = await connectionsFor(servers.ours);
const reference = await connectionsFor(servers.reference);
await servers.cleanup();
await report('connections', {
  calls: CALLS,
  modelsPerCall: models.length,
  upstreamRequests: CALLS * (models.length + 1),
  rows: [
    {
      figure: `TCP connections for ${CALLS} calls × ${models.length} models + synthesis`,
      unit: 'connections',
      ours,
      reference,
      target: `≤ ${MAX_CONCURRENCY} (PARALLEL_LLM_MAX_CONCURRENCY), kept`,
      met: ours <= MAX_CONCURRENCY,
    },
  ],
  note: 'plain HTTP on loopback, so no TLS; bench/network.ts measures handshakes over TLS at a 40 ms round trip',
});
