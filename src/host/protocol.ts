import { z } from 'zod';
import { stateSchema } from '../run/record.js';
import { startRefusalSchema } from '../run/start-refusal.js';
import { requestSchema } from '../run/request-schema.js';
import type { LookupError, RunView } from '../run/service.js';

/**
 * What the run host offers its clients, one JSON object per line over its socket (wire.ts). On a
 * new connection the host says who it is (`Hello`); the client then asks for one operation of
 * the run service (`Ask`), may take an ask back (`Withdraw`), and gets one `Reply` per ask. The
 * host checks every ask against `inputs`, since anything on its socket may ask; `outputs`
 * declares each reply, which test/host-protocol.test.ts holds the host to. A client speaks only
 * to a host of its own version, so it takes the replies as their types say.
 */
export const HOST_NAME = 'parallel-llm-run-host';

export interface Hello {
  host: string;
  version: string;
}

export interface Ask {
  id: number;
  op: string;
  args: unknown;
}

export interface Withdraw {
  withdraw: number;
}

/** What an operation returned, the lookup error it answered with, or why it could not be done. */
export type Reply = { id: number; value: unknown } | { id: number; lookup: LookupError } | { id: number; failed: string };

const runId = z.string().min(1).max(200);

export const inputs = {
  start: z.object({ request: requestSchema, fresh: z.boolean().optional(), max_cost_usd: z.number().positive().optional() }),
  watch: z.object({
    run_id: runId,
    since: z.number().int().optional(),
    wait_ms: z.number().int().min(0).max(3_600_000),
    until_settled: z.boolean().optional(),
    view_chars: z.number().int().min(0).optional(),
  }),
  view: z.object({ run_id: runId, max_chars: z.number().int().min(0) }),
  cancel: z.object({ run_id: runId, reason: z.string().max(500) }),
  list: z.object({ limit: z.number().int().min(1).max(1000) }),
  info: z.object({}),
};

/** A run's view on the wire: the answers as [index, text] pairs. */
const viewSchema = z.object({
  state: stateSchema,
  answer: z.string().nullable(),
  answers: z.array(z.tuple([z.number(), z.string()])),
  dir: z.string().nullable(),
});

export const outputs = {
  start: z.union([
    z.object({ run_id: z.string(), joined: z.enum(['new', 'attached', 'resumed']), state: stateSchema }),
    z.object({ refused: startRefusalSchema }),
  ]),
  watch: z.object({ state: stateSchema, version: z.number(), view: viewSchema.optional() }),
  view: viewSchema,
  cancel: z.object({ stopped: z.boolean(), reason: z.string().optional() }),
  list: z.object({ runs: z.array(z.object({ id: z.string(), state: stateSchema.nullable() })) }),
  info: z.object({
    pid: z.number(),
    version: z.string(),
    started_at: z.string(),
    running: z.number(),
    clients: z.number(),
    socket: z.string(),
    log: z.string(),
  }),
};

export const lookupErrorSchema = z.object({ kind: z.enum(['bad_id', 'not_found', 'damaged', 'too_large']), message: z.string() });

export type Operation = keyof typeof outputs;
/** What an operation's reply carries. */
export type Output<K extends Operation> = z.infer<(typeof outputs)[K]>;
export type HostInfo = Output<'info'>;
type WireView = z.infer<typeof viewSchema>;

export const viewToWire = (view: RunView): WireView => ({
  state: view.state,
  answer: view.answer ?? null,
  answers: [...view.answers.entries()],
  dir: view.dir ?? null,
});

export const viewFromWire = ({ state, answer, answers, dir }: WireView): RunView => ({
  state,
  answer: answer ?? undefined,
  answers: new Map(answers),
  dir: dir ?? undefined,
});
