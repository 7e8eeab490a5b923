import v8 from 'node:v8';

/**
 * Each kind of process's V8 flags. A relay (whose runs execute in the run host) passes a few small
 * messages a call, so it needs no optimizing compiler nor a growing young generation; a process
 * that streams answers itself does. The host lives long and works in bursts: a small young
 * generation, the baseline compiler for undici's WebAssembly parser, and no memory reducer.
 */
export const RUNTIME_FLAGS = {
  relay: ['--semi-space-growth-factor=1', '--no-opt'],
  runsHere: ['--opt', '--semi-space-growth-factor=2'],
  /** Given on the command line: some take effect only before any script runs. */
  host: ['--max-semi-space-size=4', '--liftoff-only', '--no-memory-reducer'],
} as const;

export function useRuntimeFlags(kind: 'relay' | 'runsHere'): void {
  v8.setFlagsFromString(RUNTIME_FLAGS[kind].join(' '));
}
