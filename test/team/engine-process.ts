import { afterEach, onTestFinished } from 'vitest';
import { tempDir } from '../support/harness.js';
import { bundleEngineChild, Gates, launchEngineProcess as launch, untilStarted, type EngineProcess } from './engine-driver.js';

export type { EngineProcess } from './engine-driver.js';

/** Every engine process a test starts is killed after it, if still running. */
const running = new Set<EngineProcess>();
afterEach(async () => {
  await Promise.all(
    [...running].map(async (engine) => {
      if (engine.child.exitCode === null && engine.child.signalCode === null) engine.child.kill('SIGKILL');
      await engine.exited;
    }),
  );
  running.clear();
});

/** The engine process's script, bundled once per test file (its folder goes with the file's temporary folders). */
let script: Promise<string> | undefined;

/** Spawns an engine process without waiting for its engine to start. */
export async function launchEngineProcess(url: string, env: Record<string, string> = {}): Promise<EngineProcess> {
  script ??= tempDir('plm-engine-child-').then(bundleEngineChild);
  const engine = launch(await script, url, env);
  running.add(engine);
  return engine;
}

/** Starts an engine process on `url` and waits until its engine has started. */
export const startEngineProcess = async (url: string, env: Record<string, string> = {}) =>
  untilStarted(await launchEngineProcess(url, env));

/** Holds the gates of these steps until the test opens them or ends. */
export async function holdGates(url: string, gates: [run: string, step: number][]): Promise<Gates> {
  const held = await Gates.hold(url, gates);
  onTestFinished(() => held.close());
  return held;
}
