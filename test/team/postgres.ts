import { execFile } from 'node:child_process';
import { chown, mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A throwaway Postgres cluster of Debian's package, on a free 127.0.0.1 port in a temporary folder. */
export interface TestPostgres {
  /** postgres://postgres@127.0.0.1:PORT/postgres, trust auth. */
  url: string;
  port: number;
  dir: string;
  /** Starts it again after `stop` (the "database is back" case). */
  start(): Promise<void>;
  /** Stops it at once, the way a crash or a lost database looks to a client. */
  stop(): Promise<void>;
  /** Stops it if running and removes its folder; never fails. */
  remove(): Promise<void>;
}

/** The newest installed major's binaries, or PLM_PG_BIN. */
async function pgBin(): Promise<string> {
  if (process.env.PLM_PG_BIN) return process.env.PLM_PG_BIN;
  const majors = (await readdir('/usr/lib/postgresql').catch(() => [])).filter((name) => /^\d+$/.test(name)).map(Number);
  if (majors.length === 0)
    throw new Error('no Postgres in /usr/lib/postgresql: apt-get install postgresql (as .ci/run does), or set PLM_PG_BIN');
  return `/usr/lib/postgresql/${Math.max(...majors)}/bin`;
}

/** A port nobody listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * initdb refuses to run as root, so as root the cluster belongs to the `postgres` user and its
 * commands run through runuser; the working folder is /tmp, which that user can read.
 */
function asOwner(command: string, args: string[]) {
  const root = process.getuid?.() === 0;
  return run(root ? 'runuser' : command, root ? ['-u', 'postgres', '--', command, ...args] : args, { cwd: os.tmpdir(), timeout: 60_000 });
}

export async function startPostgres(): Promise<TestPostgres> {
  const bin = await pgBin();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'plm-pg.'));
  const data = path.join(dir, 'data');
  const pgCtl = (...args: string[]) => asOwner(`${bin}/pg_ctl`, ['-D', data, '-l', path.join(dir, 'log'), '-w', '-t', '30', ...args]);
  const stop = async () => void (await pgCtl('-m', 'immediate', 'stop'));
  const removeDir = () => rm(dir, { recursive: true, force: true }).catch(() => undefined);
  try {
    if (process.getuid?.() === 0) {
      const { stdout } = await run('id', ['-u', 'postgres']);
      const { stdout: group } = await run('id', ['-g', 'postgres']);
      await chown(dir, Number(stdout.trim()), Number(group.trim()));
    }
    await asOwner(`${bin}/initdb`, ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
    const port = await freePort();
    // No durability needed for a test cluster; the socket goes in the temporary folder, not /run.
    const options = `-k ${dir} -c listen_addresses=127.0.0.1 -p ${port} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
    const start = async () => void (await pgCtl('-o', options, 'start'));
    await start();
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      port,
      dir,
      start,
      stop,
      async remove() {
        await stop().catch(() => undefined);
        await removeDir();
      },
    };
  } catch (error) {
    // A start that timed out may have left a server running in the folder.
    await stop().catch(() => undefined);
    await removeDir();
    throw error;
  }
}
