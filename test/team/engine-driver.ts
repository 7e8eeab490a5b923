import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { build } from 'esbuild';
import { within } from '../support/wait.js';
import { NODE_BUNDLE } from './build-cli.js';

/**
 * engine-child.ts bundled into `dir`, returning the file: a plain node start, about a second and
 * a half shorter than tsx compiling the sources in every process.
 */
export async function bundleEngineChild(dir: string): Promise<string> {
  const outfile = path.join(dir, 'engine-child.mjs');
  await build({ ...NODE_BUNDLE, entryPoints: [path.join(import.meta.dirname, 'engine-child.ts')], outfile });
  return outfile;
}

export interface ChildEvent {
  event: string;
  [field: string]: unknown;
}

/**
 * Drives engine-child.ts processes and holds their steps (used by the engine tests and by
 * bench/team-takeover.ts): an engine in a process of its own, driven by JSON lines, its events
 * kept in order.
 */
export class EngineProcess {
  readonly events: ChildEvent[] = [];
  stderr = '';
  readonly exited: Promise<number | null>;
  #waiters = new Set<() => void>();
  executorId = '';

  constructor(readonly child: ChildProcess) {
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) this.events.push({ at: Date.now(), ...(JSON.parse(line) as ChildEvent) });
      for (const wake of this.#waiters) wake();
    });
    child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    void this.exited.then(() => {
      for (const wake of this.#waiters) wake();
    });
  }

  /** The first event (from the start) that `matches`; fails after `ms`, or if the process exits first. */
  async next(matches: (event: ChildEvent) => boolean, ms = 20_000): Promise<ChildEvent & { at: number }> {
    return within(
      ms,
      new Promise<ChildEvent & { at: number }>((resolve, reject) => {
        const check = () => {
          const found = this.events.find(matches);
          if (found) {
            this.#waiters.delete(check);
            resolve(found as ChildEvent & { at: number });
          } else if (this.child.exitCode !== null || this.child.signalCode !== null) {
            this.#waiters.delete(check);
            reject(new Error(`the engine process exited without that event; stderr:\n${this.stderr}`));
          }
        };
        this.#waiters.add(check);
        check();
      }),
    ).catch((error: Error) => {
      throw new Error(`${error.message}; events: ${JSON.stringify(this.events)}; stderr:\n${this.stderr.slice(-2000)}`);
    });
  }

  send(command: Record<string, unknown>): void {
    this.child.stdin!.write(`${JSON.stringify(command)}\n`);
  }

  /** A step of run `run` with index `step` started here. */
  stepStarted(run: string, step: number, ms?: number) {
    return this.next((event) => event.event === 'step' && event.run === run && event.step === step, ms);
  }
}

/** Waits until `engine`'s engine has started, and learns its executor id. */
export async function untilStarted(engine: EngineProcess): Promise<EngineProcess> {
  const started = await engine.next((event) => event.event === 'started' || event.event === 'failed', 30_000);
  if (started.event !== 'started') throw new Error(`the engine did not start: ${JSON.stringify(started)}\n${engine.stderr}`);
  engine.executorId = started.executor as string;
  return engine;
}

/** Spawns an engine process (`script`: from bundleEngineChild) without waiting for it. */
export function launchEngineProcess(script: string, url: string, env: Record<string, string> = {}): EngineProcess {
  const child = spawn(process.execPath, [script], {
    env: { PATH: process.env.PATH ?? '', PLM_TEST_DB: url, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return new EngineProcess(child);
}

/** The hold on runs' steps: each step waits for its gate lock, which this holds until `open` lets it go. */
export class Gates {
  private constructor(private readonly client: pg.Client) {}

  static async hold(url: string, gates: [run: string, step: number][]): Promise<Gates> {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
    // The gates go with the database when a test stops it.
    client.on('error', () => undefined);
    await client.connect();
    for (const [run, step] of gates)
      await client.query("SELECT pg_advisory_lock(hashtextextended('gate:' || $1 || ':' || $2, 0))", [run, step]);
    return new Gates(client);
  }

  close(): Promise<void> {
    return this.client.end();
  }

  async open(run: string, step: number): Promise<void> {
    await this.client.query("SELECT pg_advisory_unlock(hashtextextended('gate:' || $1 || ':' || $2, 0))", [run, step]);
  }
}
