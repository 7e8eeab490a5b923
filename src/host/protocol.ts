import type { z } from 'zod';
import type { RunView } from '../run/service.js';
import type { lookupErrorSchema, outputs, viewSchema } from './protocol-schemas.js';

/**
 * What the run host offers its faces, as MCP tools over its socket: one tool per operation of
 * the run service (src/run/service.ts), each answering with structuredContent of a declared
 * shape (protocol-schemas.ts), or `isError` with a lookup error.
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

/** What an operation's reply carries. */
export type Output<K extends keyof typeof outputs> = z.infer<(typeof outputs)[K]>;
export type HostInfo = Output<'info'>;
export type LookupReply = z.infer<typeof lookupErrorSchema>;
type WireView = z.infer<typeof viewSchema>;

/** A view as the wire carries it. */
export const viewToWire = (view: RunView): WireView => ({
  state: view.state,
  answer: view.answer ?? null,
  answers: [...view.answers.entries()],
  dir: view.dir ?? null,
});

/** A view as the wire carried it. */
export const viewFromWire = ({ state, answer, answers, dir }: WireView): RunView => ({
  state,
  answer: answer ?? undefined,
  answers: new Map(answers),
  dir: dir ?? undefined,
});
