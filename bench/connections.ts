/** Connections: TCP connections the upstream accepts for 10 sequential calls of 5 models. */
import { connect, installedBin, processPrompt, report, serverEnv, startFakeOpenRouter, tempOutputDir } from './lib.js';

const CALLS = 10;
const fake = await startFakeOpenRouter();
const models = ['n/1', 'n/2', 'n/3', 'n/4', 'n/5'];
models.forEach((model, i) => fake.on(model, { answer: `answer ${i}`, delayMs: 20 + 10 * i }));
fake.on('n/synth', { answer: 'synthesized', delayMs: 20 });
const { binPath, cleanup } = await installedBin();
const session = await connect(binPath, serverEnv(fake, await tempOutputDir(), { PARALLEL_LLM_MODELS: models.join(','), PARALLEL_LLM_SYNTHESIZER_MODEL: 'n/synth' }));
for (let i = 0; i < CALLS; i++) await processPrompt(session, { prompt: `call ${i}` });
await session.close();
await fake.close();
await cleanup();
await report('connections', {
  calls: CALLS,
  modelsPerCall: models.length,
  upstreamRequests: fake.requests.length,
  tcpConnections: fake.connections,
  clientPerCallWouldOpen: fake.requests.length,
  note: 'plain HTTP on loopback, so no TLS; see the network bench for TLS handshakes',
});
