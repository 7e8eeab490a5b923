import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A real HTTP server on 127.0.0.1 for `doctor`: it answers GET /key and GET /models the way
 * OpenRouter does (full model rows: aliases, `expiration_date`, `created`), or lacks them
 * (404, as another OpenAI-compatible server may), or never answers (a hung upstream).
 */
export type Endpoint<T> = T | 'missing' | 'hang';

export interface CatalogOptions {
  key?: Endpoint<Record<string, unknown>>;
  /** The rows, or a function giving each request's answer (to change prices between requests). */
  models?: Endpoint<Array<Record<string, unknown>>> | (() => Endpoint<Array<Record<string, unknown>>>);
}

export interface CatalogServer {
  /** The base URL: http://127.0.0.1:PORT/api/v1 */
  url: string;
  /** Requests received, by route ('/key', '/models'). */
  hits: Record<string, number>;
  close(): Promise<void>;
}

export async function startCatalogServer(options: CatalogOptions): Promise<CatalogServer> {
  const sockets = new Set<Socket>();
  const hits: Record<string, number> = {};
  const models = () => (typeof options.models === 'function' ? options.models() : options.models);
  const server = http.createServer((req, res) => {
    const route = (req.url ?? '').replace(/^\/api\/v1/, '');
    hits[route] = (hits[route] ?? 0) + 1;
    const endpoint = route === '/key' ? options.key : route === '/models' ? models() : 'missing';
    if (endpoint === 'hang') return;
    if (endpoint === undefined || endpoint === 'missing') {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<!DOCTYPE html><title>404: This page could not be found.</title>');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: endpoint }));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A /models row as OpenRouter writes it, with only the fields we read and a few we do not. */
export function modelRow(
  id: string,
  extra: {
    created?: string;
    expiration_date?: string;
    alias_target?: string;
    pricing?: Record<string, string>;
    supported_parameters?: string[];
  } = {},
): Record<string, unknown> {
  return {
    id,
    canonical_slug: id,
    name: id,
    context_length: 262_144,
    created: extra.created ? Date.parse(extra.created) / 1000 : 1_735_689_600,
    expiration_date: extra.expiration_date ?? null,
    ...(extra.alias_target ? { alias_target: { slug: extra.alias_target, name: extra.alias_target } } : {}),
    ...(extra.pricing ? { pricing: extra.pricing } : {}),
    ...(extra.supported_parameters ? { supported_parameters: extra.supported_parameters } : {}),
  };
}
