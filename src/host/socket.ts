import { chmod } from 'node:fs/promises';
import net from 'node:net';
import { withinMs } from '../clock.js';

const PROBE_MS = 1000;

/** Listens on a Unix socket (or named pipe), readable and writable by the user alone. */
export async function listen(server: net.Server, socket: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error) => reject(error);
    server.once('error', failed);
    server.listen(socket, () => {
      server.off('error', failed);
      resolve();
    });
  });
  if (process.platform !== 'win32') await chmod(socket, 0o600);
}

/** A connection to the socket within `ms`, or the error that refused it. */
export function connect(socket: string, ms = PROBE_MS): Promise<net.Socket> {
  const silent = () => Object.assign(new Error(`no answer on ${socket} within ${ms} ms`), { code: 'ETIMEDOUT' });
  const connecting = (signal: AbortSignal) =>
    new Promise<net.Socket>((resolve, reject) => {
      const connection = net.connect({ path: socket, signal });
      connection.once('error', reject);
      connection.once('connect', () => {
        connection.off('error', reject);
        resolve(connection);
      });
    });
  return withinMs(ms, connecting, silent);
}

export async function answers(socket: string): Promise<boolean> {
  const connection = await connect(socket).catch(() => undefined);
  connection?.destroy();
  return connection !== undefined;
}
