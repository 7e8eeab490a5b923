/**
 * `npm run bench -- profile`: a CPU profile of the big-stream shape (one call of 5 models, each
 * streaming 2 MiB of prose in 64-character events; three calls in a row, after one to warm up)
 * taken with `node --cpu-prof` of the server process running the calls itself, saved in
 * bench/profiles/, with the frames that took the most time printed. The profiles are what bench/profiles/README.md reads.
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  assertAnswered,
  connect,
  freshPrompt,
  installedBin,
  processPrompt,
  report,
  serverEnv,
  startFakeOpenRouter,
  tempOutputDir,
  topFrames,
  type CpuProfile,
} from './lib.js';
import { piecesOf, prose, serveStream } from './streams.js';

const CALLS = 3;
const TOP = 15;

const fake = await startFakeOpenRouter();
const models = Array.from({ length: 5 }, (_, i) => `big/${i + 1}`);
for (const model of models) serveStream(fake, model, piecesOf(prose(2 * 1024 * 1024), 64));
fake.on('big/synth', { answer: 'synthesized' });
const { binPath, cleanup } = await installedBin();
const profileDir = path.join(os.tmpdir(), `parallel-llm-profile-${process.pid}`);
// The runs execute in the server process itself (the run host's fallback): a detached host
// would not inherit --cpu-prof (nor can NODE_OPTIONS carry it), and it runs the same code.
const env = serverEnv(fake, await tempOutputDir(), {
  PARALLEL_LLM_MODELS: models.join(','),
  PARALLEL_LLM_SYNTHESIZER_MODEL: 'big/synth',
  PARALLEL_LLM_RUN_HOST: 'off',
});
// The profile is written when the process exits.
const session = await connect({ command: process.execPath, args: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, binPath] }, env);
for (let i = 0; i <= CALLS; i++)
  assertAnswered(session, await processPrompt(session, { prompt: freshPrompt('profile') }, { timeout: 600_000 }), 'a profiled call');
await session.close();
await fake.close();
await cleanup();

const saved = path.join(import.meta.dirname, 'profiles');
await mkdir(saved, { recursive: true });
const tops: Record<string, ReturnType<typeof topFrames>> = {};
for (const [i, file] of (await readdir(profileDir)).filter((name) => name.endsWith('.cpuprofile')).entries()) {
  const text = await readFile(path.join(profileDir, file), 'utf8');
  const name = i === 0 ? 'big-stream.cpuprofile' : `big-stream-${i + 1}.cpuprofile`;
  await writeFile(path.join(saved, name), text);
  tops[name] = topFrames(JSON.parse(text) as CpuProfile, TOP);
}
await rm(profileDir, { recursive: true, force: true });
await report('profile', { calls: CALLS, top: tops });
