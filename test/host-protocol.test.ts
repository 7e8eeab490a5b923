import net from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { HOST_NAME, type HostInfo } from '../src/host/protocol.js';
import { RunHostClient } from '../src/host/client.js';
import { HostRunService } from '../src/host/host-run-service.js';
import { serveClient } from '../src/host/serve.js';
import { MAX_LINE_BYTES } from '../src/text/line-splitter.js';
import { runRequest } from '../src/mcp/run-request.js';
import type { RunService, WatchOptions } from '../src/run/service.js';
import { startFakeOpenRouter } from './support/fake-openrouter.js';
import { silentLogger } from './support/client.js';
import { harnessesClosedAfterEach } from './support/harness.js';
import { waitFor } from './support/wait.js';

/**
 * The run host's protocol (src/host/protocol.ts) between a client and the host's server, over a
 * real socket and a real run service. A client takes the replies as they are (it speaks only to a
 * host of its own version), so the first test holds every reply to what the service itself gives.
 */
const VERSION = '0.0.0-test';
const fake = await startFakeOpenRouter();
const start = harnessesClosedAfterEach();
const servers: net.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});
afterAll(() => fake.close());

fake.on('p/one', { answer: 'one', delayMs: 10 });
fake.on('p/two', { answer: 'two', delayMs: 30 });
fake.on('p/synth', { answer: 'merged ✓', delayMs: 10 });
fake.on('p/slow', { answer: 'late', delayMs: 5000 });
const env = { PARALLEL_LLM_MODELS: 'p/one,p/two', PARALLEL_LLM_SYNTHESIZER_MODEL: 'p/synth' };

const info = (): HostInfo => ({
  pid: process.pid,
  version: VERSION,
  started_at: new Date().toISOString(),
  running: 0,
  clients: 1,
  socket: 's',
  log: 'l',
});

/** A host's server on a local socket, over `service`; every connection closed with the test. */
async function listening(serve: (socket: net.Socket) => void): Promise<{ connect: () => Promise<net.Socket> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    serve(socket);
  });
  const close = server.close.bind(server);
  server.close = (callback) => {
    for (const socket of sockets) socket.destroy();
    return close(callback);
  };
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    connect: () =>
      new Promise((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
        socket.once('error', reject);
      }),
  };
}

/** The run service of a harness, seen through a host's channel; `watched` holds the signal of every watch the host was asked for. */
async function hostOverRuns(models = env) {
  const harness = await start(fake, models);
  const watched: AbortSignal[] = [];
  const runs = harness.app.service;
  const service: RunService = {
    start: (request, options) => runs.start(request, options),
    watch: (id: string, options: WatchOptions) => {
      if (options.signal) watched.push(options.signal);
      return runs.watch(id, options);
    },
    view: (id, maxChars) => runs.view(id, maxChars),
    cancel: (id, reason) => runs.cancel(id, reason),
    list: (limit) => runs.list(limit),
    onStart: (listener) => runs.onStart(listener),
    notice: undefined,
    finished: () => runs.finished(),
    close: () => runs.close(),
  };
  const host = await listening((socket) => serveClient(socket, service, VERSION, info));
  const channel = await HostRunService.open(await host.connect(), VERSION);
  const ask = (op: string, args: object, signal?: AbortSignal) => channel.ask(op, args, { timeoutMs: 20_000, signal });
  const request = (prompt: string) => runRequest(prompt, {}, harness.config);
  /** A run of the slow model, started through the host: its id. */
  const slowRun = async (prompt: string) => ((await ask('start', { request: request(prompt) })) as { id: string }).id;
  return { host, channel, ask, request, slowRun, watched, service, config: harness.config };
}

/** A connection that writes lines as they are given and reads the host's replies, parsed. */
async function rawFace(host: { connect: () => Promise<net.Socket> }) {
  const socket = await host.connect();
  const replies: unknown[] = [];
  let partial = '';
  socket.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop()!;
    replies.push(...lines.map((line) => JSON.parse(line) as unknown));
  });
  return {
    write: (...lines: string[]) => {
      for (const line of lines) socket.write(`${line}\n`);
    },
    replies: async (count: number) => {
      await waitFor(() => replies.length >= count);
      return replies.slice(0, count);
    },
    close: () => socket.destroy(),
  };
}

describe('the run host protocol', () => {
  it('gives a client, for every operation, what the run service itself gives', async () => {
    const { channel: remote, request, service: local } = await hostOverRuns();
    const started = await remote.start(request('a client'));
    if ('refused' in started) throw new Error('refused');
    expect(started).toEqual({ id: expect.stringMatching(/^\d{4}-/), joined: 'new' });

    const watched = await remote.watch(started.id, { waitMs: 10_000, untilSettled: true, viewChars: 1000 });
    expect(watched.ok && watched.value.view?.answers).toBeInstanceOf(Map);
    expect(watched.ok && watched.value.view?.answer).toBe('merged ✓');
    const now = { waitMs: 0, viewChars: 1000 };
    expect(await remote.watch(started.id, now)).toEqual(await local.watch(started.id, now));
    expect(await remote.start(request('a client'))).toEqual(await local.start(request('a client')));
    expect(await remote.view(started.id, 1000)).toEqual(await local.view(started.id, 1000));
    expect(await remote.list(5)).toEqual(await local.list(5));
    expect(await remote.cancel(started.id, 'late')).toEqual(await local.cancel(started.id, 'late'));
    expect(await remote.info()).toMatchObject({ pid: process.pid, version: VERSION, socket: 's' });
    expect(await remote.view('not-a-run', 10)).toEqual(await local.view('not-a-run', 10));
    expect(await remote.watch('not-a-run', { waitMs: 0 })).toMatchObject({ ok: false, error: { kind: 'bad_id' } });
  });

  it('refuses what it cannot do, and says why', async () => {
    const { ask } = await hostOverRuns();
    await expect(ask('view', { id: 42, maxChars: 10 })).rejects.toThrow(/the arguments of view are not valid: .*→ at id/s);
    await expect(ask('delete_everything', {})).rejects.toThrow('no such operation: "delete_everything"');
    // A run host of this version is still served after both.
    expect(await ask('info', {})).toMatchObject({ version: VERSION });
  });

  it('ends the wait a client takes back, or asked for too long, and the client hears why', async () => {
    const { ask, channel, slowRun, watched } = await hostOverRuns({ ...env, PARALLEL_LLM_MODELS: 'p/slow' });
    const id = await slowRun('withdrawn');
    const withdraw = new AbortController();
    const asked = ask('watch', { id, waitMs: 60_000, untilSettled: true }, withdraw.signal);
    await waitFor(() => watched.length === 1);
    withdraw.abort(new Error('the client cancelled'));
    await expect(asked).rejects.toThrow('the client cancelled');
    await waitFor(() => watched[0]!.aborted);

    const late = channel.ask('watch', { id, waitMs: 60_000, untilSettled: true }, { timeoutMs: 100 });
    await expect(late).rejects.toThrow('the run host did not answer within 1 s');
    await waitFor(() => watched[1]?.aborted === true);
    await ask('cancel', { id, reason: 'done with it' });
  });

  it('ends the waits of a client whose connection is lost, and the client knows before its asks fail', async () => {
    const { ask, channel, slowRun, watched } = await hostOverRuns({ ...env, PARALLEL_LLM_MODELS: 'p/slow' });
    const id = await slowRun('lost');
    const told: string[] = [];
    const asked = ask('watch', { id, waitMs: 60_000, untilSettled: true }).catch((error: Error) => {
      told.push(`lost: ${channel.lost}`, error.message);
    });
    await waitFor(() => watched.length === 1);
    await channel.close();
    await asked;
    expect(told).toEqual(['lost: true', 'the connection to the run host was lost']);
    await waitFor(() => watched[0]!.aborted);
    await expect(ask('info', {})).rejects.toThrow('the connection to the run host is closed');
  });

  it('answers an ask too long to read with an error, and goes on serving', async () => {
    const { host } = await hostOverRuns();
    const raw = await rawFace(host);
    raw.write(`{"id":7,"op":"start","args":{"request":"${'x'.repeat(MAX_LINE_BYTES)}"}}`, '{"id":8,"op":"info","args":{}}');
    const [hello, tooLong, info] = await raw.replies(3);
    expect(hello).toEqual({ host: HOST_NAME, version: VERSION });
    expect(tooLong).toMatchObject({ id: 7, failed: expect.stringContaining('over the limit') as string });
    expect(info).toMatchObject({ id: 8, value: { version: VERSION } });
  });

  it('survives whatever is sent on its socket, answering what has an id and serving the rest', async () => {
    const { host } = await hostOverRuns();
    const raw = await rawFace(host);
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    raw.write(
      'null',
      '5',
      '[1]',
      '"text"',
      '{"id":"one","op":"info"}',
      `{"id":1,"op":${deep}}`,
      '{"id":2,"op":"info",',
      '{"id":3,"op":"info","args":{}}',
    );
    const [, deepOp, broken, info] = await raw.replies(4);
    expect(deepOp).toEqual({ id: 1, failed: 'no such operation: a object' });
    expect(broken).toMatchObject({ id: 2, failed: 'the ask could not be read: a message that is not a JSON object' });
    expect(info).toMatchObject({ id: 3, value: { version: VERSION } });
  });

  it('answers an ask whose id is still in use with an error, and still ends the first wait when the client goes', async () => {
    const { host, ask, slowRun, watched } = await hostOverRuns({ ...env, PARALLEL_LLM_MODELS: 'p/slow' });
    const id = await slowRun('twice');
    const raw = await rawFace(host);
    const watch = JSON.stringify({ id: 5, op: 'watch', args: { id, waitMs: 60_000, untilSettled: true } });
    raw.write(watch, watch);
    expect((await raw.replies(2))[1]).toEqual({ id: 5, failed: 'ask 5 is still being answered' });
    expect(watched).toHaveLength(1);
    raw.close();
    await waitFor(() => watched[0]!.aborted);
    await ask('cancel', { id, reason: 'done with it' });
  });

  it("says what the run service refused to do, in the service's words", async () => {
    const { ask, request } = await hostOverRuns();
    const keyAsModel = { ...request('a key where a model belongs'), models: ['sk-or-v1-0123456789abcdef0123456789'] };
    await expect(ask('start', { request: keyAsModel })).rejects.toThrow('a model id of the request is an API key');
  });

  it('reaches a host again when the connection is lost during an ask, and asks there once more', async () => {
    const { channel, request, service, config } = await hostOverRuns();
    const dying = await listening((socket) => {
      serveClient(socket, service, VERSION, info);
      socket.on('data', (chunk: Buffer) => chunk.includes('"op":"watch"') && socket.destroy());
    });
    const hosts = [await HostRunService.open(await dying.connect(), VERSION), channel];
    let reached = 0;
    const runs = new RunHostClient(config, silentLogger, VERSION, async () => ({ runs: hosts[reached++]! }));
    const started = await runs.start(request('lost and found'));
    if ('refused' in started) throw new Error('refused');
    const watched = await runs.watch(started.id, { waitMs: 10_000, untilSettled: true });
    expect(watched.ok && watched.value.state.status).toBe('complete');
    expect(reached).toBe(2);
  });

  it('is not taken for the run host by a client of another version, nor is anything else', async () => {
    const host = await listening((socket) => serveClient(socket, {} as RunService, '9.9.9', info));
    await expect(HostRunService.open(await host.connect(), VERSION)).rejects.toThrow(
      `served by ${HOST_NAME} 9.9.9, not the run host ${VERSION}`,
    );
    const stranger = await listening((socket) => socket.end('{"not":"a host"}\n'));
    await expect(HostRunService.open(await stranger.connect(), VERSION)).rejects.toThrow('served by undefined undefined');
  });
});
