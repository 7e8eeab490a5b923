import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of the test cluster, so that one test file can take "its" database away
 * (or make it silent) without stopping the cluster every other file uses.
 */
export interface DatabaseProxy {
  /** The given URL, through the proxy. */
  url: string;
  /** Drops every connection and refuses new ones, as a database that went down. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  /** Accepts connections and passes nothing on, either way (connections made already too), as a database that stopped answering. */
  silent(on: boolean): void;
  close(): Promise<void>;
}

export async function startProxy(target: string): Promise<DatabaseProxy> {
  const to = new URL(target);
  const sockets = new Set<Socket>();
  let quiet = false;
  let server: Server | undefined;
  let port = 0;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((client) => {
        track(client);
        if (quiet) return;
        const upstream = createConnection({ host: to.hostname, port: Number(to.port) });
        track(upstream);
        // While silent, what either side sends is lost, as with a machine that stopped answering.
        client.on('data', (data) => quiet || upstream.write(data));
        upstream.on('data', (data) => quiet || client.write(data));
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      server.once('error', reject).listen(port, '127.0.0.1', () => {
        port = (server!.address() as { port: number }).port;
        resolve();
      });
    });
  const down = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  };
  await listen();
  const url = new URL(target);
  url.port = String(port);
  return {
    url: url.toString(),
    down,
    up: listen,
    silent(on) {
      quiet = on;
    },
    close: down,
  };
}
