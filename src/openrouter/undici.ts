import type { Dispatcher } from 'undici';
import Agent from 'undici/lib/dispatcher/agent.js';
import dispatchRequest from 'undici/lib/api/api-request.js';

/**
 * The two parts of undici the client uses, its pooled dispatcher and its request API, with what
 * they need of the rest. undici's index also loads fetch, WebSocket, EventSource, caches and
 * mocks, and the Node modules behind them (zlib, dns, perf_hooks, worker_threads, console),
 * which would all sit in the run host's memory unused. The client
 * imports this module lazily, so the bundle puts it and undici in a chunk of their own, loaded
 * on the first request. The parts are undici's own files (undici-parts.d.ts types them): the
 * bundle is built against the installed undici, so a release that moved them fails the build,
 * and one that changed them fails the client's tests, never a user's call.
 */
export { Agent };

/** undici's `request`, always on our dispatcher: the URL split into origin and path as undici's own `request` splits it. */
export function request(url: string, { dispatcher, ...options }: RequestOptions): Promise<Dispatcher.ResponseData> {
  const { origin, pathname, search } = new URL(url);
  return dispatchRequest.call(dispatcher, { ...options, origin, path: `${pathname}${search}` });
}

type RequestOptions = Omit<Dispatcher.RequestOptions, 'origin' | 'path'> & { dispatcher: Dispatcher };
