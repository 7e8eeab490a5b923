import type { z } from 'zod';
import type { RunView } from '../run/service.js';
import type { outputs, viewSchema } from './protocol-schemas.js';

/**
 * What the run host offers its clients over its channel (wire.ts): one operation of the run
 * service (src/run/service.ts) per ask, each answering with a value of a declared shape
 * (protocol-schemas.ts), or with a lookup error.
 */
export const HOST_NAME = 'parallel-llm-run-host';

export type Operation = keyof typeof outputs;

/** What an operation's reply carries. */
export type Output<K extends Operation> = z.infer<(typeof outputs)[K]>;
export type HostInfo = Output<'info'>;
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
