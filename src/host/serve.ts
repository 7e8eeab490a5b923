import type { Socket } from 'node:net';
import * as z from 'zod';
import type { RunService } from '../run/service.js';
import { HOST_NAME, inputs, type HostInfo, type Operation, type Reply } from './protocol.js';
import { readMessages, send } from './wire.js';

/**
 * Serves one client's connection to the run host with the service the host executes runs with.
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
      const value = await (handlers[op] as AnyHandler)(checked.data, withdrawn.signal);
      if (!withdrawn.signal.aborted) reply({ id, value });
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

/** A reply quotes an operation's name cut short, and anything else only by its type. */
const nameOf = (op: unknown) => (typeof op === 'string' ? JSON.stringify(op.slice(0, 100)) : `a ${op === null ? 'null' : typeof op}`);

type Handlers = { [K in Operation]: (args: z.infer<(typeof inputs)[K]>, signal: AbortSignal) => Promise<unknown> };
type AnyHandler = (args: unknown, signal: AbortSignal) => Promise<unknown>;

function operations(service: RunService, info: () => HostInfo): Handlers {
  return {
    start: ({ request, ...options }) => service.start(request, options),
    watch: ({ id, ...options }, signal) => service.watch(id, { ...options, signal }),
    view: ({ id, maxChars }) => service.view(id, maxChars),
    cancel: ({ id, reason }) => service.cancel(id, reason),
    list: ({ limit }) => service.list(limit),
    info: async () => info(),
  };
}
