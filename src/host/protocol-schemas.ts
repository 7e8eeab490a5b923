import { z } from 'zod';
import { stateSchema } from '../run/record.js';
import { startRefusalSchema } from '../run/start-refusal.js';
import { requestSchema } from '../run/request-schema.js';

/**
 * The run host's protocol (protocol.ts) as zod schemas: the host checks every call's arguments
 * against `inputs` (anything on its socket may call it); `outputs` declares what each operation
 * answers, which test/host-protocol.test.ts holds the host to. A face builds none of them: it
 * speaks only to a host of its own version, and takes the replies as their types say.
 */
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
export const viewSchema = z.object({
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

export const lookupErrorSchema = z.object({ kind: z.enum(['bad_id', 'not_found', 'damaged', 'too_large']), message: z.string() });
