import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { inject } from 'vitest';
import { tempDir } from '../support/harness.js';
import { waitFor, within } from '../support/wait.js';

/** A `parallel-llm-mcp serve --http` child process on a free port. */
export interface ServeProcess {
  child: ChildProcess;
  /** http://127.0.0.1:PORT */
  base: string;
  /** Everything it wrote on stderr so far (its log among it). */
  stderr(): string;
  /** SIGTERM, then waits for its exit; returns its exit code. */
  stop(): Promise<number | null>;
  /** Its exit code, once it has exited (however it was stopped). */
  exited: Promise<number | null>;
}

const started: ServeProcess[] = [];

/** Starts the bin global-setup.ts built, with only the environment given (and PATH), in an empty working folder; the engine it starts (DBOS) makes it slow to listen on a busy machine. */
export async function startServe(env: Record<string, string>, args: string[] = []): Promise<ServeProcess> {
  const child = spawn(process.execPath, [path.join(inject('cliDir'), 'dist', 'bin.js'), 'serve', '--http', '--port', '0', ...args], {
    cwd: await tempDir('plm-serve-'),
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await waitFor(() => /listening on http:\/\/127\.0\.0\.1:\d+\/mcp/.test(stderr) || child.exitCode !== null, 45_000);
  const base = /listening on (http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(stderr)?.[1];
  if (!base) throw new Error(`the server did not start: ${stderr}`);
  const serve: ServeProcess = {
    child,
    base,
    stderr: () => stderr,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return within(30_000, exited);
    },
  };
  started.push(serve);
  return serve;
}

/** Stops every server a test file started and has not stopped (for its afterAll). */
export async function stopAllServes(): Promise<void> {
  await Promise.all(started.splice(0).map((serve) => serve.stop().catch(() => undefined)));
}
