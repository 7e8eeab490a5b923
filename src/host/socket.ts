import { chmod } from 'node:fs/promises';
import net from 'node:net';

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
  return new Promise((resolve, reject) => {
    const connection = net.connect(socket);
    const timer = setTimeout(() => {
      connection.destroy();
      reject(Object.assign(new Error(`no answer on ${socket} within ${ms} ms`), { code: 'ETIMEDOUT' }));
    }, ms);
    connection.once('connect', () => {
      clearTimeout(timer);
      connection.off('error', failed);
      resolve(connection);
    });
    const failed = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    connection.once('error', failed);
  });
}

export async function answers(socket: string): Promise<boolean> {
  try {
    (await connect(socket)).destroy();
    return true;
  } catch {
    return false;
  }
}
