import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPool, startEngine, type Engine } from '../../packages/team/src/index.js';
import { testDatabase } from './database.js';

/**
 * A TCP proxy to the database that can be cut: every connection through it dropped and new ones
 * refused, while connections that do not go through it (the engine's liveness) stay up.
 */
async function cuttableProxy(target: URL) {
  const sockets = new Set<net.Socket>();
  let cut = false;
  const server = net.createServer((socket) => {
    if (cut) return socket.destroy();
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const [a, b] of [
      [socket, upstream],
      [upstream, socket],
    ] as const) {
      sockets.add(a);
      a.on('error', () => b.destroy());
      a.on('close', () => {
        sockets.delete(a);
        b.destroy();
      });
      a.pipe(b);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    cut() {
      cut = true;
      for (const socket of sockets) socket.destroy();
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

let direct: string;
let proxy: Awaited<ReturnType<typeof cuttableProxy>>;
let engine: Engine<unknown, unknown> | undefined;
const pool = () => openPool(proxy.url, { max: 6 });
let engines: ReturnType<typeof pool>;
beforeAll(async () => {
  direct = await testDatabase();
  proxy = await cuttableProxy(new URL(direct));
  engines = pool();
});
afterAll(async () => {
  await engine?.stop();
  await engines?.end();
  await proxy?.close();
});

it('answers a call with database_down within its limit when the pool cannot reach the database, however long DBOS would retry', async () => {
  const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
  engine = await startEngine({ pool: engines, databaseUrl: direct, logger: quiet, version: 'test-1', run: async () => 'done' });
  await engine.start('before-cut', null);
  expect(await engine.result('before-cut', 10_000)).toEqual({ status: 'done', output: 'done' });
  proxy.cut();
  const started = Date.now();
  await expect(engine.start('after-cut', null)).rejects.toMatchObject({ name: 'TeamError', kind: 'database_down' });
  await expect(engine.cancel('before-cut')).rejects.toMatchObject({ name: 'TeamError', kind: 'database_down' });
  // Two calls, each given up on within its 5 s limit (and the pool's 3 s to connect).
  expect(Date.now() - started).toBeLessThan(20_000);
}, 40_000);
