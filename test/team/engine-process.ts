import { afterEach, onTestFinished } from 'vitest';
import { Gates, launchEngineProcess as launch, untilStarted, type EngineProcess } from './engine-driver.js';

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

/** Spawns an engine process without waiting for it. */
export function launchEngineProcess(url: string, env: Record<string, string> = {}): EngineProcess {
  const engine = launch(url, env);
  running.add(engine);
  return engine;
}

/** Starts an engine process on `url` and waits until its engine has started. */
export const startEngineProcess = (url: string, env: Record<string, string> = {}) => untilStarted(launchEngineProcess(url, env));

/** Holds the gates of these steps until the test opens them or ends. */
export async function holdGates(url: string, gates: [run: string, step: number][]): Promise<Gates> {
  const held = await Gates.hold(url, gates);
  onTestFinished(() => held.close());
  return held;
}
