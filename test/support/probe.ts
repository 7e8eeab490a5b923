import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Owner } from '../../src/run/record.js';

const projectRoot = path.resolve(import.meta.dirname, '..', '..');
const script = path.join(projectRoot, 'test', 'support', 'liveness-probe.ts');

export interface Probe {
  owner: Owner;
  /** Asks the probe whether the owner of `subject` is alive, in its eyes. */
  ask(subject: { run_id: string; owner: Owner }, leaseFreshMs: number): Promise<boolean>;
  /** kill -9, settled once the process is gone. */
  kill(): Promise<void>;
}

const started: ChildProcess[] = [];

/** Every probe still running, killed: for afterEach. */
export async function killProbes(): Promise<void> {
  await Promise.all(started.splice(0).map((child) => killed(child)));
}

/**
 * Starts test/support/liveness-probe.ts; with `prefix`, under that command (`unshare ...`).
 * The lease is touched every `touchMs`.
 */
export async function startProbe(outputDir: string, touchMs: number, prefix: string[] = []): Promise<Probe> {
  const command = [...prefix, process.execPath, '--import', 'tsx', script, outputDir, String(touchMs)];
  const child = spawn(command[0]!, command.slice(1), { cwd: projectRoot, stdio: ['pipe', 'pipe', 'inherit'] });
  started.push(child);
  const lines = lineReader(child);
  const owner = JSON.parse(await lines.next()) as Owner;
  return {
    owner,
    ask: async (subject, leaseFreshMs) => {
      child.stdin!.write(`${JSON.stringify({ ...subject, leaseFreshMs })}\n`);
      return (await lines.next()) === 'true';
    },
    kill: () => killed(child),
  };
}

function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  return exited;
}

/** The child's stdout, a line at a time, in order; rejects when it exits first. */
function lineReader(child: ChildProcess): { next(): Promise<string> } {
  const lines: string[] = [];
  const waiting: Array<{ resolve: (line: string) => void; reject: (error: Error) => void }> = [];
  let buffered = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (buffered + chunk).split('\n');
    buffered = parts.pop()!;
    for (const line of parts) {
      const waiter = waiting.shift();
      if (waiter) waiter.resolve(line);
      else lines.push(line);
    }
  });
  child.once('exit', (code, signal) => {
    for (const waiter of waiting.splice(0)) waiter.reject(new Error(`the probe exited (${code ?? signal})`));
  });
  return {
    next: () => {
      const line = lines.shift();
      if (line !== undefined) return Promise.resolve(line);
      if (child.exitCode !== null || child.signalCode !== null) return Promise.reject(new Error('the probe has exited'));
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
  };
}
