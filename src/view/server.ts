import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config/config.js';
import type { RunService } from '../run/service.js';
import type { RunStorage } from '../store/store.js';
import { isRunId } from '../store/store.js';
import { isMissing, runPage, runRows } from './page-data.js';
import { pageHtml } from './pages.js';

/** How many runs the list shows: the newest. */
const LISTED_RUNS = 200;

export interface ViewServer {
  /** The runs list's address, with its token: http://127.0.0.1:PORT/TOKEN/ */
  url: string;
  close(): Promise<void>;
}

/**
 * The pages of `parallel-llm-mcp view` on 127.0.0.1, read-only: under /TOKEN/, the runs list,
 * a page per run (runs/ID), and their data (api/runs, api/runs/ID). Any other path, a wrong
 * token, a host name that is not this loopback address (a page elsewhere rebinding its name to
 * it), a bad or unknown run id, or a method other than GET is a 404 that says nothing more.
 */
export async function startViewServer(service: RunService, store: RunStorage | undefined, config: Config, port = 0): Promise<ViewServer> {
  const token = randomBytes(24).toString('base64url');
  const html = await pageHtml('view');
  const script = /<script>([\s\S]*)<\/script>/.exec(html)![1]!;
  const headers = {
    'content-security-policy': `default-src 'none'; script-src 'sha256-${createHash('sha256').update(script).digest('base64')}'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  };
  let host = '';
  const server = http.createServer((req, res) => {
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { ...headers, 'content-type': type, 'content-length': Buffer.byteLength(body) });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    const notFound = () => send(404, 'text/plain; charset=utf-8', 'Not found\n');
    const route = (req.method === 'GET' || req.method === 'HEAD') && req.headers.host === host ? routeOf(req.url ?? '', token) : undefined;
    if (!route) return notFound();
    answer(route)
      .then((found) => (found ? send(200, found.type, found.body) : notFound()))
      .catch(() => send(500, 'text/plain; charset=utf-8', 'The run could not be read\n'));
  });

  async function answer(route: Route): Promise<{ type: string; body: string } | undefined> {
    const page = { type: 'text/html; charset=utf-8', body: html };
    const json = (value: unknown) => ({ type: 'application/json; charset=utf-8', body: JSON.stringify(value) });
    if (route.kind === 'list') return page;
    if (route.kind === 'rows') return json(await runRows(service, LISTED_RUNS));
    // The page itself only needs the run to exist: its data, every answer read in full, comes with its own request.
    const found = route.kind === 'run' ? await service.view(route.id, 0) : await runPage(service, store, config, route.id);
    if (!found.ok) {
      if (isMissing(found.error)) return undefined;
      throw new Error(found.error.message);
    }
    return route.kind === 'run' ? page : json(found.value);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  host = `127.0.0.1:${bound}`;
  return {
    url: `http://${host}/${token}/`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

type Route = { kind: 'list' } | { kind: 'rows' } | { kind: 'run' | 'data'; id: string };

/** What a path asks for, when it starts with the token; a run id must look like one before anything is read. */
function routeOf(url: string, token: string): Route | undefined {
  const path = url.split('?', 1)[0]!;
  const [, given = '', ...rest] = path.split('/');
  if (!sameToken(given, token)) return undefined;
  const tail = rest.join('/');
  if (tail === '') return { kind: 'list' };
  if (tail === 'api/runs') return { kind: 'rows' };
  const run = /^(api\/)?runs\/([^/]+)$/.exec(tail);
  if (!run) return undefined;
  let id: string;
  try {
    id = decodeURIComponent(run[2]!);
  } catch {
    return undefined;
  }
  return isRunId(id) ? { kind: run[1] ? 'data' : 'run', id } : undefined;
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
