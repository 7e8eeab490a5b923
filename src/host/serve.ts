import type { Socket } from 'node:net';
import { z } from 'zod';
import { ok, type Result } from '../result.js';
import type { LookupError, RunService } from '../run/service.js';
import { HOST_NAME, inputs, viewToWire, type HostInfo, type Operation, type Reply } from './protocol.js';
import { readMessages, send } from './wire.js';

/**
 * Serves one client's connection to the run host: it says who it is, then does each ask with the
 * run service the host executes runs with, and replies. Anything on the socket may ask, so
 * every ask's arguments are checked first, and nothing it sends is trusted to be what it should.
 * A client that goes away takes nothing with it: the waits it asked for end, its runs go on.
 */
export function serveClient(socket: Socket, service: RunService, version: string, info: () => HostInfo): void {
  const handlers = operations(service, info);
  const asked = new Map<number, AbortController>();
  const reply = (message: Reply) => send(socket, message);
  const serve = async (id: number, op: Operation, args: unknown) => {
    const checked = inputs[op].safeParse(args);
    if (!checked.success) return reply({ id, failed: `the arguments of ${op} are not valid: ${z.prettifyError(checked.error)}` });
    const withdrawn = new AbortController();
    asked.set(id, withdrawn);
    try {
      const done = await (handlers[op] as AnyHandler)(checked.data, withdrawn.signal);
      if (!withdrawn.signal.aborted) reply(done.ok ? { id, value: done.value } : { id, lookup: done.error });
    } catch (error) {
      if (!withdrawn.signal.aborted) reply({ id, failed: error instanceof Error ? error.message : 'the run host failed' });
    } finally {
      asked.delete(id);
    }
  };
  readMessages(
    socket,
    ({ id, op, args, withdraw }) => {
      if (typeof withdraw === 'number') return asked.get(withdraw)?.abort();
      if (typeof id !== 'number') return;
      if (asked.has(id)) return reply({ id, failed: `ask ${id} is still being answered` });
      if (typeof op !== 'string' || !Object.hasOwn(inputs, op)) return reply({ id, failed: `no such operation: ${nameOf(op)}` });
      // A reply that cannot be written (a value that is not JSON) ends the connection, never the host.
      void serve(id, op as Operation, args).catch(() => socket.destroy());
    },
    (id, why) => id !== undefined && reply({ id, failed: `the ask could not be read: ${why}` }),
  );
  socket.once('close', () => {
    for (const withdrawn of asked.values()) withdrawn.abort();
  });
  send(socket, { host: HOST_NAME, version });
}

/** An operation's name as a reply may quote it: a string, cut short; anything else only by its type. */
const nameOf = (op: unknown) => (typeof op === 'string' ? JSON.stringify(op.slice(0, 100)) : `a ${op === null ? 'null' : typeof op}`);

type Args<K extends Operation> = z.infer<(typeof inputs)[K]>;
/** What each operation does with its checked arguments: its value, or a lookup error. */
type Handlers = { [K in Operation]: (args: Args<K>, signal: AbortSignal) => Promise<Result<object, LookupError>> };
type AnyHandler = (args: unknown, signal: AbortSignal) => Promise<Result<object, LookupError>>;

function operations(service: RunService, info: () => HostInfo): Handlers {
  return {
    start: async ({ request, fresh, max_cost_usd }) => {
      const started = await service.start(request, { fresh, maxCostUsd: max_cost_usd });
      return ok('refused' in started ? started : { run_id: started.id, joined: started.joined, state: started.state });
    },
    watch: async ({ run_id, since, wait_ms, until_settled, view_chars }, signal) => {
      const watched = await service.watch(run_id, { since, waitMs: wait_ms, signal, untilSettled: until_settled, viewChars: view_chars });
      if (!watched.ok) return watched;
      const { view, ...rest } = watched.value;
      return ok(view ? { ...rest, view: viewToWire(view) } : rest);
    },
    view: async ({ run_id, max_chars }) => {
      const viewed = await service.view(run_id, max_chars);
      return viewed.ok ? ok(viewToWire(viewed.value)) : viewed;
    },
    cancel: async ({ run_id, reason }) => ok(await service.cancel(run_id, reason)),
    list: async ({ limit }) =>
      ok({ runs: (await service.list(limit)).map((listing) => ({ id: listing.id, state: listing.state ?? null })) }),
    info: async () => ok(info()),
  };
}
