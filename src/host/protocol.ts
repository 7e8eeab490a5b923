import { z } from 'zod';
import { stateSchema } from '../run/record.js';
import { startRefusalSchema } from '../run/refusal.js';
import { requestSchema } from '../run/request.js';
import type { RunView } from '../run/service.js';

/**
 * What the run host offers its faces, as MCP tools over its socket: one tool per operation of
 * the run service (src/run/service.ts), each answering with structuredContent of a declared
 * shape, or `isError` with a lookup error. The host checks every call's arguments against
 * `inputs` (anything on the socket may call it); a face takes the replies as `outputs` declares
 * them, since it speaks only to a host of its own version (test/host-protocol.test.ts holds the
 * host's replies to them).
 */
export const HOST_NAME = 'parallel-llm-run-host';

export const TOOLS = {
  start: 'start_run',
  watch: 'watch_run',
  view: 'view_run',
  cancel: 'cancel_run',
  list: 'list_runs',
  info: 'host_info',
} as const;

const runId = z.string().min(1).max(200);

export const inputs = {
  start: { request: requestSchema, fresh: z.boolean().optional(), max_cost_usd: z.number().positive().optional() },
  watch: {
    run_id: runId,
    since: z.number().int().optional(),
    wait_ms: z.number().int().min(0).max(3_600_000),
    until_settled: z.boolean().optional(),
    view_chars: z.number().int().min(0).optional(),
  },
  view: { run_id: runId, max_chars: z.number().int().min(0) },
  cancel: { run_id: runId, reason: z.string().max(500) },
  list: { limit: z.number().int().min(1).max(1000) },
  info: {},
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
    faces: z.number(),
    socket: z.string(),
    log: z.string(),
  }),
};

export const lookupErrorSchema = z.object({
  error: z.object({ kind: z.enum(['bad_id', 'not_found', 'damaged', 'too_large']), message: z.string() }),
});

export type HostInfo = z.infer<typeof outputs.info>;
/** What an operation's reply carries. */
export type Output<K extends keyof typeof outputs> = z.infer<(typeof outputs)[K]>;
export type LookupReply = z.infer<typeof lookupErrorSchema>;

/** A view as the wire carries it. */
export const viewToWire = (view: RunView): z.infer<typeof viewSchema> => ({
  state: view.state,
  answer: view.answer ?? null,
  answers: [...view.answers.entries()],
  dir: view.dir ?? null,
});

/** A view as the wire carried it. */
export const viewFromWire = ({ state, answer, answers, dir }: z.infer<typeof viewSchema>): RunView => ({
  state,
  answer: answer ?? undefined,
  answers: new Map(answers),
  dir: dir ?? undefined,
});
