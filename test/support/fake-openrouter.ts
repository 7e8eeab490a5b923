import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

/** The path of the base URL, as OpenRouter's (https://openrouter.ai/api/v1). */
const BASE_PATH = '/api/v1';

/**
 * A real HTTP server on 127.0.0.1 (or `host`; HTTPS when `tls` is given) that speaks
 * OpenRouter's dialect: streamed answers with keep-alive comments and a final usage
 * chunk, JSON errors, errors inside 200 bodies and mid-stream, Retry-After, resets and
 * hangs. Each model is scripted; a model with several behaviours uses them in order, one
 * per request, and repeats the last.
 */
export type Behaviour =
  | {
      answer: string;
      /** Wait before the first content chunk (keep-alive comments are sent meanwhile). */
      delayMs?: number;
      reasoning?: string;
      finishReason?: string;
      /** Send a plain JSON completion instead of a stream. */
      json?: boolean;
      /** Split the answer into this many content chunks. */
      chunks?: number;
      usage?: Record<string, unknown>;
    }
  | { status: number; error?: Record<string, unknown>; body?: string; headers?: Record<string, string>; delayMs?: number }
  /** A 200 JSON body, sent as is. */
  | { body200: unknown; delayMs?: number }
  /** Raw SSE lines, each followed by a newline, with an optional pause before each. */
  | { sse: Array<string | { pauseMs: number }> }
  /**
   * A body sent as the given pieces of bytes, each in its own write with a pause after it
   * (2 ms unless given), so that each arrives as a separate network read: a piece may end
   * inside a UTF-8 character or a JSON value. A text/event-stream 200 unless told otherwise.
   */
  | { raw: Array<Buffer | string | { pauseMs: number }>; status?: number; contentType?: string; pauseMs?: number }
  /** The behaviour chosen from the request itself: to echo its headers or body back, say. */
  | { fromRequest: (request: RecordedRequest) => Behaviour }
  | { reset: true; afterMs?: number }
  | { hang: true; keepAliveEveryMs?: number };

export interface RecordedRequest {
  model: string;
  body: Record<string, unknown>;
  headers: http.IncomingHttpHeaders;
  /** The request's path, the base URL's included. */
  path: string;
  at: number;
}

export interface FakeOpenRouter {
  /** The base URL to give the client: http://127.0.0.1:PORT/api/v1 (https:// with `tls`). */
  url: string;
  requests: RecordedRequest[];
  /** TCP connections accepted since start. */
  connections: number;
  /** TLS handshakes completed since start ('secureConnection' events); always 0 without `tls`. */
  tlsHandshakes: number;
  /** Chat requests whose client went away before the response ended. */
  aborted: number;
  /** Chat requests in progress right now, and the most ever at once. */
  inFlight: number;
  maxInFlight: number;
  on(model: string, ...behaviours: Behaviour[]): void;
  /** The behaviour for models with no script of their own. */
  otherwise(behaviour: Behaviour): void;
  requestsFor(model: string): RecordedRequest[];
  close(): Promise<void>;
}

export const VALID_KEY = 'sk-or-v1-test-key-0123456789';

export interface FakeOptions {
  keepAliveCommentMs?: number;
  models?: string[];
  /** Prices for GET /models, by model id, as OpenRouter writes them (strings of US dollars per token); 'missing': /models answers 404. */
  prices?: Record<string, Record<string, string>> | 'missing';
  /** `supported_parameters` for GET /models, by model id (`structured_outputs`: it takes a JSON schema as `response_format`). */
  parameters?: Record<string, string[]>;
  /** Serve HTTPS with this PEM key and certificate instead of plain HTTP. */
  tls?: { key: string; cert: string };
  /** The address to listen on; 127.0.0.1 unless given. */
  host?: string;
}

export async function startFakeOpenRouter(options: FakeOptions = {}): Promise<FakeOpenRouter> {
  const scripts = new Map<string, Behaviour[]>();
  let fallback: Behaviour = { answer: 'default answer' };
  const sockets = new Set<Socket>();
  const keepAliveMs = options.keepAliveCommentMs ?? 1000;

  const fake: FakeOpenRouter = {
    url: '',
    requests: [],
    connections: 0,
    tlsHandshakes: 0,
    aborted: 0,
    inFlight: 0,
    maxInFlight: 0,
    on(model, ...behaviours) {
      scripts.set(model, behaviours);
    },
    otherwise(behaviour) {
      fallback = behaviour;
    },
    requestsFor(model) {
      return fake.requests.filter((request) => request.model === model);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };

  const next = (model: string): Behaviour => {
    const script = scripts.get(model);
    if (!script || script.length === 0) return fallback;
    return script.length > 1 ? script.shift()! : script[0]!;
  };

  const handle: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      // Every route is under the base URL's path, as OpenRouter's are: a client that drops it is told so.
      const url = req.url ?? '';
      if (!url.startsWith(`${BASE_PATH}/`)) return sendJson(res, 404, { error: { code: 404, message: `no route ${req.method} ${url}` } });
      const path = url.slice(BASE_PATH.length);
      if (req.headers.authorization !== `Bearer ${VALID_KEY}` && path !== '/models') {
        return sendJson(res, 401, { error: { code: 401, message: 'User not found.' } });
      }
      if (req.method === 'GET' && path === '/key') {
        return sendJson(res, 200, { data: { label: 'test key', limit: 10, limit_remaining: 7.5, usage: 2.5, is_free_tier: false } });
      }
      if (req.method === 'GET' && path === '/models') {
        const prices = options.prices;
        if (prices === 'missing') return sendJson(res, 404, { error: { code: 404, message: 'no route GET /models' } });
        const parameters = options.parameters ?? {};
        const ids = new Set([...(options.models ?? []), ...Object.keys(prices ?? {}), ...Object.keys(parameters)]);
        const pricing = (id: string) => (prices?.[id] ? { pricing: prices[id] } : {});
        const takes = (id: string) => (parameters[id] ? { supported_parameters: parameters[id] } : {});
        const row = (id: string) => ({ id, canonical_slug: id, context_length: 128000, ...pricing(id), ...takes(id) });
        return sendJson(res, 200, { data: [...ids].map(row) });
      }
      if (req.method !== 'POST' || path !== '/chat/completions') {
        return sendJson(res, 404, { error: { code: 404, message: `no route ${req.method} ${path}` } });
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      const model = String(body.model);
      fake.requests.push({ model, body, headers: req.headers, path: url, at: Date.now() });
      fake.inFlight++;
      fake.maxInFlight = Math.max(fake.maxInFlight, fake.inFlight);
      res.on('close', () => {
        fake.inFlight--;
        if (!res.writableFinished) fake.aborted++;
      });
      const request = fake.requests.at(-1)!;
      const resolve = (behaviour: Behaviour): Played => ('fromRequest' in behaviour ? resolve(behaviour.fromRequest(request)) : behaviour);
      void play(resolve(next(model)), model, body, res, keepAliveMs);
    });
  };
  const server = options.tls ? https.createServer({ key: options.tls.key, cert: options.tls.cert }, handle) : http.createServer(handle);
  // Over TLS, 'connection' still reports each TCP connection; 'secureConnection' each handshake.
  server.on('secureConnection', () => fake.tlsHandshakes++);
  server.on('connection', (socket) => {
    fake.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const shownHost = host.includes(':') ? `[${host}]` : host;
  fake.url = `${options.tls ? 'https' : 'http'}://${shownHost}:${(server.address() as AddressInfo).port}${BASE_PATH}`;
  return fake;
}

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Played = Exclude<Behaviour, { fromRequest: unknown }>;

async function play(behaviour: Played, model: string, request: Record<string, unknown>, res: http.ServerResponse, keepAliveMs: number) {
  const gone = () => res.destroyed || res.writableEnded;
  if ('reset' in behaviour) {
    await wait(behaviour.afterMs ?? 0);
    res.socket?.destroy();
    return;
  }
  if ('hang' in behaviour) {
    if (behaviour.keepAliveEveryMs) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const timer = setInterval(() => res.write(': OPENROUTER PROCESSING\n\n'), behaviour.keepAliveEveryMs);
      res.on('close', () => clearInterval(timer));
    }
    return;
  }
  if ('raw' in behaviour) {
    res.writeHead(behaviour.status ?? 200, { 'content-type': behaviour.contentType ?? 'text/event-stream' });
    for (const piece of behaviour.raw) {
      if (typeof piece === 'object' && !Buffer.isBuffer(piece)) {
        await wait(piece.pauseMs);
        continue;
      }
      res.write(piece);
      await wait(behaviour.pauseMs ?? 2);
      if (gone()) return;
    }
    res.end();
    return;
  }
  if ('status' in behaviour) {
    await wait(behaviour.delayMs ?? 0);
    if (gone()) return;
    res.writeHead(behaviour.status, { 'content-type': 'application/json', ...behaviour.headers });
    res.end(
      behaviour.body ?? JSON.stringify({ error: behaviour.error ?? { code: behaviour.status, message: `fake error ${behaviour.status}` } }),
    );
    return;
  }
  if ('body200' in behaviour) {
    await wait(behaviour.delayMs ?? 0);
    if (!gone()) sendJson(res, 200, behaviour.body200);
    return;
  }
  if ('sse' in behaviour) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const line of behaviour.sse) {
      if (typeof line === 'string') res.write(`${line}\n`);
      else await wait(line.pauseMs);
      if (gone()) return;
    }
    res.end();
    return;
  }
  const usage = behaviour.usage ?? {
    prompt_tokens: 100,
    completion_tokens: 50,
    total_tokens: 150,
    cost: 0.0015,
    completion_tokens_details: { reasoning_tokens: behaviour.reasoning ? 20 : 0 },
  };
  const finishReason = behaviour.finishReason ?? 'stop';
  if (behaviour.json || request.stream !== true) {
    await wait(behaviour.delayMs ?? 0);
    if (gone()) return;
    const message = {
      role: 'assistant',
      content: behaviour.answer === '' ? null : behaviour.answer,
      reasoning: behaviour.reasoning ?? null,
    };
    sendJson(res, 200, { id: 'gen-fake', model, provider: 'Fake', choices: [{ index: 0, message, finish_reason: finishReason }], usage });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id: 'gen-fake', object: 'chat.completion.chunk', model, provider: 'Fake', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
  res.write(': OPENROUTER PROCESSING\n\n');
  const keepAlive = setInterval(() => res.write(': OPENROUTER PROCESSING\n\n'), keepAliveMs);
  res.on('close', () => clearInterval(keepAlive));
  await wait(behaviour.delayMs ?? 0);
  clearInterval(keepAlive);
  if (gone()) return;
  if (behaviour.reasoning) res.write(chunk({ role: 'assistant', content: '', reasoning: behaviour.reasoning }));
  for (const piece of split(behaviour.answer, behaviour.chunks ?? 3)) res.write(chunk({ role: 'assistant', content: piece }));
  res.write(
    `data: ${JSON.stringify({ id: 'gen-fake', object: 'chat.completion.chunk', model, provider: 'Fake', choices: [{ index: 0, delta: { content: '' }, finish_reason: finishReason }], usage })}\n\n`,
  );
  res.end('data: [DONE]\n\n');
}

function split(text: string, parts: number): string[] {
  if (text === '') return [];
  const size = Math.ceil(text.length / parts);
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}
