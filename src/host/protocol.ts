import * as z from 'zod';
import { requestSchema } from '../run/request-schema.js';
import type { RunView } from '../run/service.js';

/**
 * What the run host offers its clients, one JSON object per line over its socket (wire.ts). On a
 * new connection the host says who it is (`Hello`); each `Ask` then names a method of the run
 * service with its arguments by name, may be taken back (`Withdraw`), and gets one `Reply`: what
 * the method returned, or why it failed. Anything on the socket may ask, so the host checks every
 * ask against `inputs`; a client speaks only to a host of its own version, so it trusts replies.
 */
export const HOST_NAME = 'parallel-llm-run-host';

export type Hello = { host: string; version: string };
export type Ask = { id: number; op: string; args: unknown };
export type Withdraw = { withdraw: number };
export type Reply = { id: number; value: unknown } | { id: number; failed: string };

const id = z.string().min(1).max(200);

export const inputs = {
  start: z.object({ request: requestSchema, fresh: z.boolean().optional(), maxCostUsd: z.number().positive().optional() }),
  watch: z.object({
    id,
    since: z.number().int().optional(),
    waitMs: z.number().int().min(0).max(3_600_000),
    untilSettled: z.boolean().optional(),
    viewChars: z.number().int().min(0).optional(),
  }),
  view: z.object({ id, maxChars: z.number().int().min(0) }),
  cancel: z.object({ id, reason: z.string().max(500) }),
  list: z.object({ limit: z.number().int().min(1).max(1000) }),
  info: z.object({}),
};

export type Operation = keyof typeof inputs;

/** The host's own account of itself, as `runs` prints it. */
export interface HostInfo {
  pid: number;
  version: string;
  started_at: string;
  running: number;
  clients: number;
  socket: string;
  log: string;
}

/** A run's view as it comes: send() writes its answers, a Map, as [index, text] pairs. */
export type WireView = Omit<RunView, 'answers'> & { answers: Array<[number, string]> };

export const viewFromWire = (view: WireView): RunView => ({ ...view, answers: new Map(view.answers) });
